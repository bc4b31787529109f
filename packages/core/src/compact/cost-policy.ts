/**
 * @module compact/cost-policy
 * When a compaction pays for the prompt cache it breaks (issue 19; the reasoning is in
 * docs/notes/cost-model.md). A compaction rewrites the prompt after the part it keeps (the
 * system prompt and the head), so the next request writes that part to the cache again
 * instead of reading it: a bust of about `(cacheWrite − cacheRead) × (C − H)` input-token
 * prices, `C` the context the compaction leaves and `H` the part it keeps. Every turn after it
 * then reads `x − C` fewer cached tokens. The rule is ski rental: keep the excess read since the
 * last compaction, `E = Σ (x_t − C)` over its turns, and compact once `cacheRead × E` reaches
 * the bust (plus what an LLM summary costs); in steady growth that is the optimal interval,
 * `sqrt(2 × bust / (cacheRead × growth))` turns, without estimating the growth, and a burst
 * (a large tool output) brings it forward.
 *
 * A cache idle past its lifetime is cold (`models/cache-lifetime`): the next request writes the
 * whole prompt whatever happens, so past the floor a compaction costs no bust and is done then.
 *
 * The rule only decides between the floor (a fraction of the window under which the context
 * is left alone) and the engine's limit, which forces a compaction whatever it costs.
 * Its state (E, C and H) belongs to the caller, who carries it from turn to turn; without it
 * the rule falls back to a stateless guard: compact past the floor when a compaction would at
 * least halve the context.
 */

import type { ModelPricing } from "../models/pricing.js";

/** What the caller carries between turns for the cost policy (`TriggerDecision.cacheState` and `CompactResult.cacheState` hand it back). */
export interface CacheState {
  /** Σ (tokens − compactedTokens) over the turns since the last compaction: the excess read from the cache. */
  excessTokens: number;
  /** Tokens the context held right after the last compaction (C). */
  compactedTokens: number;
  /** Tokens of the part of it no compaction rewrites: system prompt and head (H). */
  stableTokens: number;
}

export interface CostPolicyInput {
  /** Tokens the context holds now (x). */
  tokens: number;
  /** Tokens under which the context is left alone: floor × window. */
  floorTokens: number;
  pricing: Pick<ModelPricing, "cacheWrite" | "cacheRead">;
  /** The carried state, or undefined for the stateless guard. */
  state: CacheState | undefined;
  /** What a compaction is expected to leave when no state says (C estimated). */
  expectedCompactedTokens: number;
  /** What an LLM summary costs, in uncached input tokens of the session's model (K). */
  summarizerCostTokens: number;
  /**
   * The provider's cache has expired since the last read (`models/cache-lifetime`): compacting
   * now breaks nothing, so it pays whenever the write it saves covers the summary.
   */
  coldCache?: boolean;
}

export interface CostPolicyDecision {
  /** Whether compacting now pays for the cache it breaks. */
  compact: boolean;
  reason: "under_floor" | "pays_off" | "cold_cache" | "not_yet" | "would_not_halve";
  /** The excess read including this turn (what to carry when no compaction happens). */
  excessTokens: number;
  /** The excess at which a compaction pays: (cacheWrite / cacheRead − 1) × (C − H) + K / cacheRead. */
  breakEvenTokens: number;
}

/**
 * The excess read at which compacting pays for the bust: `(w − r) × (C − H) + K`, divided by `r`
 * to be in tokens read. With no caching (`r` = 1, `w` = 1) only the summary's cost is left.
 */
export function breakEvenTokens(
  pricing: Pick<ModelPricing, "cacheWrite" | "cacheRead">,
  rewrittenTokens: number,
  summarizerCostTokens: number,
): number {
  const { cacheWrite, cacheRead } = pricing;
  const bust = Math.max(0, cacheWrite - cacheRead) * Math.max(0, rewrittenTokens);
  return (bust + Math.max(0, summarizerCostTokens)) / cacheRead;
}

/** Whether the cost policy compacts a context of `tokens` now (the engine's limit is checked apart). */
export function decideCostCompaction(input: CostPolicyInput): CostPolicyDecision {
  const { tokens, state } = input;
  const compacted = state?.compactedTokens ?? input.expectedCompactedTokens;
  const excessTokens = (state?.excessTokens ?? 0) + Math.max(0, tokens - compacted);
  const rewritten = compacted - (state?.stableTokens ?? 0);
  const breakEven = breakEvenTokens(input.pricing, rewritten, input.summarizerCostTokens);
  const decision = (compact: boolean, reason: CostPolicyDecision["reason"]) => ({
    compact,
    reason,
    excessTokens,
    breakEvenTokens: breakEven,
  });
  if (tokens < input.floorTokens) return decision(false, "under_floor");
  if (input.coldCache === true) {
    // The next request writes the whole context again; a compaction makes it write C instead of x.
    const saved = input.pricing.cacheWrite * Math.max(0, tokens - compacted);
    if (saved >= Math.max(0, input.summarizerCostTokens) && saved > 0)
      return decision(true, "cold_cache");
  }
  if (state === undefined) {
    // No record of the turns since the last compaction: compact when it would at least halve the context.
    return tokens >= 2 * compacted
      ? decision(true, "pays_off")
      : decision(false, "would_not_halve");
  }
  return excessTokens >= breakEven ? decision(true, "pays_off") : decision(false, "not_yet");
}
