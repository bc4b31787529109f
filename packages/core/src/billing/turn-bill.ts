/**
 * @module billing/turn-bill
 * A session's bill: the model requests it served, each priced under the provider's prompt cache
 * with the rule the bench uses (`billing/prompt-cache`'s `priceRequest`), beside what sending the
 * whole history every turn would have cost under the same cache. A session does not keep every
 * request it served, so each turn is described by its size and the prefix an earlier request sent
 * unchanged: between compactions the context only grows at its end (the client's breakpoint on its
 * newest message, or automatic prefix caching, makes all of the previous request readable); a
 * compaction keeps only its stable prefix (system prompt, head, pinned messages).
 *
 * What the provider reported for a turn (its cached tokens, from the answer's usage) is priced
 * apart: the estimate is what compares with the whole history, the report what was billed.
 */

import { cacheLifetimeMs, isCacheCold } from "../models/cache-lifetime.js";
import type { CachePricing } from "./prompt-cache.js";
import { priceRequest } from "./prompt-cache.js";

/** What a provider reported of one prompt: every input token, and those read from and written to its cache. */
export interface ProviderUsage {
  /** Every token of the prompt: uncached, read from the cache and written to it. */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** One model request a session served. */
export interface ServedTurn {
  /** Tokens of the context sent. */
  tokens: number;
  /** Of them, the prefix an earlier request sent unchanged. */
  reusedTokens: number;
  /** Tokens of the whole history at that turn. */
  wholeTokens: number;
  /** Of them, the prefix the previous turn's whole history sent unchanged. */
  wholeReusedTokens: number;
  /** What the provider reported for it, when the caller passed its usage on. */
  usage?: ProviderUsage | undefined;
  /**
   * When it was sent (ms since the epoch). A turn sent longer after the previous one than the
   * provider's cache lifetime (`models/cache-lifetime`) finds the cache cold: it reads nothing.
   */
  at?: number | undefined;
}

/** A bill in the catalog's dollars, when the model has an input price, and in uncached input tokens. */
export interface Bill {
  /** Uncached input tokens' worth: read × cacheRead + written × cacheWrite + uncached. */
  cost: number;
  /** `cost` at the model's input price; null when the catalog has none. */
  dollars: number | null;
  readTokens: number;
  writtenTokens: number;
}

export interface SessionBill {
  /** The model whose prices these are. */
  model: string;
  turns: number;
  /** The served turns, priced under the cache (estimated). */
  condense: Bill & { busts: number };
  /** The whole history sent every turn of the same session, priced under the same cache. */
  wholeHistory: Bill;
  /** `condense.cost ÷ wholeHistory.cost`; null before any turn. */
  ratio: number | null;
  /** Turns that came after the cache's lifetime had passed: billed as a full write, not as busts. */
  coldTurns: number;
  /** The turns whose usage was reported, priced as the provider counted them. */
  reported: Bill & { turns: number; inputTokens: number };
  /** Per turn, in order: both bills so far (cumulative costs), for a chart. */
  running: Array<{ condense: number; wholeHistory: number }>;
}

function dollars(cost: number, pricing: CachePricing): number | null {
  return pricing.inputPerMillion > 0 ? (cost * pricing.inputPerMillion) / 1_000_000 : null;
}

/** A turn's price under the cache: its reused prefix is read, the rest written at its end (breakpoints) or sent. */
function priceTurn(pricing: CachePricing, tokens: number, reused: number) {
  return priceRequest(pricing, {
    tokens,
    hitTokens: Math.min(reused, tokens),
    // The client marks its newest message, so the whole request is written for the next turn.
    markedTokens: tokens >= pricing.minTokens ? tokens : 0,
  });
}

/** The bill of `turns`, in order, under `pricing`. */
export function billTurns(pricing: CachePricing, turns: readonly ServedTurn[]): SessionBill {
  const condense = { cost: 0, readTokens: 0, writtenTokens: 0, busts: 0 };
  const whole = { cost: 0, readTokens: 0, writtenTokens: 0 };
  const reported = { cost: 0, readTokens: 0, writtenTokens: 0, turns: 0, inputTokens: 0 };
  const running: SessionBill["running"] = [];
  let previous = 0;
  let previousAt: number | undefined;
  let coldTurns = 0;
  const lifetime = cacheLifetimeMs(pricing.caching);
  for (const turn of turns) {
    const cold = isCacheCold(previousAt, turn.at ?? previousAt ?? 0, lifetime);
    if (turn.at !== undefined) previousAt = turn.at;
    if (cold) coldTurns++;
    const served = priceTurn(pricing, turn.tokens, cold ? 0 : turn.reusedTokens);
    condense.cost += served.cost;
    condense.readTokens += served.read;
    condense.writtenTokens += served.written;
    if (!cold && previous >= pricing.minTokens && turn.reusedTokens < previous) condense.busts++;
    previous = turn.tokens;
    const sent = priceTurn(pricing, turn.wholeTokens, cold ? 0 : turn.wholeReusedTokens);
    whole.cost += sent.cost;
    whole.readTokens += sent.read;
    whole.writtenTokens += sent.written;
    if (turn.usage !== undefined) {
      const { inputTokens, cacheReadTokens, cacheWriteTokens } = turn.usage;
      const uncached = Math.max(0, inputTokens - cacheReadTokens - cacheWriteTokens);
      reported.cost +=
        pricing.cacheRead * cacheReadTokens + pricing.cacheWrite * cacheWriteTokens + uncached;
      reported.readTokens += cacheReadTokens;
      reported.writtenTokens += cacheWriteTokens;
      reported.inputTokens += inputTokens;
      reported.turns++;
    }
    running.push({ condense: condense.cost, wholeHistory: whole.cost });
  }
  return {
    model: pricing.model,
    turns: turns.length,
    condense: { ...condense, dollars: dollars(condense.cost, pricing) },
    wholeHistory: { ...whole, dollars: dollars(whole.cost, pricing) },
    ratio: whole.cost > 0 ? condense.cost / whole.cost : null,
    coldTurns,
    reported: { ...reported, dollars: dollars(reported.cost, pricing) },
    running,
  };
}
