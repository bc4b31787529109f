/**
 * @module bench/cost/summaries
 * What the summaries of a replay would cost beside its bill, had an LLM written them (the bench's
 * sessions run the deterministic summarizer, whose summaries are the same size budget): each
 * compaction that wrote a summary, priced two ways in the session model's input tokens
 * (core's `compact/summarizer-cost`):
 * - sent whole: a summarizer call of the same model that sends the folded range (what the
 *   compaction dropped, plus the summary it replaced) and its prompt, none of it cached;
 * - through the cache (`cachedSummaries`): the context before the compaction read from the
 *   cache, the instruction and the summary at full price.
 * compact-at-95's summaries are priced through the cache too (as Claude Code writes them): its
 * context at 95% of the window read, a 2,000-token summary written.
 */

import {
  type CachePricing,
  cachedSummaryCostTokens,
  modelPricing,
  separateSummaryCostTokens,
} from "@condense/core";
import type { PricedReplay } from "./replay-record.ts";

/** The summary prompt's own tokens (core's instruction and template, a ledger): never cached. */
export const SUMMARY_INSTRUCTION_TOKENS = 1_200;
/** compact-at-95's summary (`bench/cost/baselines`). */
const COMPACT95_SUMMARY_TOKENS = 2_000;

export interface SummaryCosts {
  /** Summaries written. */
  count: number;
  /** Their cost sent whole, in input tokens of the session's model. */
  sentWhole: number;
  /** Their cost through the cache. */
  throughCache: number;
}

/** The cost of the summaries `replay`'s compactions wrote, both ways, under `pricing`. */
export function summaryCosts(
  replay: PricedReplay | undefined,
  pricing: CachePricing,
): SummaryCosts {
  const prices = modelPricing(pricing.model);
  const costs: SummaryCosts = { count: 0, sentWhole: 0, throughCache: 0 };
  for (const event of replay?.compactions ?? []) {
    if (event.summaryTokens <= 0) continue;
    const folded = Math.max(0, event.tokensBefore - event.tokensAfter + event.summaryTokens);
    costs.count += 1;
    costs.sentWhole += separateSummaryCostTokens(
      { inputTokens: folded + SUMMARY_INSTRUCTION_TOKENS, outputTokens: event.summaryTokens },
      prices,
      prices,
    );
    costs.throughCache += cachedSummaryCostTokens(
      {
        promptTokens: event.tokensBefore,
        instructionTokens: SUMMARY_INSTRUCTION_TOKENS,
        outputTokens: event.summaryTokens,
      },
      { ...prices, cacheRead: pricing.cacheRead },
    );
  }
  return costs;
}

/** compact-at-95's `compactions` summaries through the cache, in a window of `window` tokens. */
export function compact95SummaryCost(
  compactions: number,
  window: number,
  pricing: CachePricing,
): number {
  const prices = modelPricing(pricing.model);
  return (
    compactions *
    cachedSummaryCostTokens(
      {
        promptTokens: Math.floor(0.95 * window),
        instructionTokens: SUMMARY_INSTRUCTION_TOKENS,
        outputTokens: COMPACT95_SUMMARY_TOKENS,
      },
      { ...prices, cacheRead: pricing.cacheRead },
    )
  );
}
