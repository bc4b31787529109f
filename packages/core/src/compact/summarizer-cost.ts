/**
 * @module compact/summarizer-cost
 * What an LLM summary costs, in uncached input tokens of the session's model: the unit of the
 * cost policy's `summarizerCostTokens` (`compact/cost-policy`) and of the bill. Two routes:
 * - through the cache: the summary request is the live prompt with the summary instruction
 *   appended (the gateway's summaries on the session's own upstream), so the provider reads the
 *   prompt from its cache at the read price; only the instruction is new input, and the summary
 *   is output, at their full prices;
 * - a summarizer model of its own: the range it folds and its instruction are new input at its
 *   input price and the summary is output at its output price, both over the session model's
 *   input price (a cheap model's summary costs little of the session's unit).
 */

import type { ModelPricing } from "../models/pricing.js";

/**
 * Output over input price when the catalog does not say: GPT-4o's ratio, the lowest of the
 * current families (Claude's is 5, GPT-5's 8), so an unknown model's summary is not overpriced.
 */
export const DEFAULT_OUTPUT_PRICE_RATIO = 4;

type Prices = Pick<ModelPricing, "inputPerMillion" | "outputPerMillion">;

/** What an output token costs in input tokens of the same model. */
function outputRatio(pricing: Prices): number {
  const { inputPerMillion: input, outputPerMillion: output } = pricing;
  return input !== undefined && input > 0 && output !== undefined
    ? output / input
    : DEFAULT_OUTPUT_PRICE_RATIO;
}

/** A summary request that extends the live prompt. */
export interface CachedSummaryTokens {
  /** The live prompt it repeats, read from the provider's cache. */
  promptTokens: number;
  /** The summary instruction appended to it. */
  instructionTokens: number;
  /** The summary written. */
  outputTokens: number;
}

/** The price of a summary through the cache: `prompt × cacheRead + instruction + output × (out / in)`. */
export function cachedSummaryCostTokens(
  tokens: CachedSummaryTokens,
  pricing: Pick<ModelPricing, "cacheRead"> & Prices,
): number {
  return (
    Math.max(0, tokens.promptTokens) * pricing.cacheRead +
    Math.max(0, tokens.instructionTokens) +
    Math.max(0, tokens.outputTokens) * outputRatio(pricing)
  );
}

/** The price of a summary from a summarizer model of its own, which caches none of the session's prompt. */
export function separateSummaryCostTokens(
  tokens: { inputTokens: number; outputTokens: number },
  summarizer: Prices,
  session: Prices,
): number {
  const sessionInput = session.inputPerMillion;
  const summarizerInput = summarizer.inputPerMillion;
  // Unknown prices: the summarizer's tokens are counted as the session model's.
  const inputShare =
    sessionInput !== undefined && sessionInput > 0 && summarizerInput !== undefined
      ? summarizerInput / sessionInput
      : 1;
  return (
    Math.max(0, tokens.inputTokens) * inputShare +
    Math.max(0, tokens.outputTokens) * inputShare * outputRatio(summarizer)
  );
}
