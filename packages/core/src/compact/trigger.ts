/**
 * @module compact/trigger
 * When to compact: always when the context (system included) is over
 * `threshold × window` or the free space left is under the reserve (the limit);
 * under the `cost` policy also past `floor × window` once compacting pays for
 * the prompt cache it breaks (`compact/cost-policy`).
 */

import { InvalidOptionsError } from "../errors/condense-error.js";
import { cacheLifetimeMs, isCacheCold } from "../models/cache-lifetime.js";
import { type CacheState, decideCostCompaction } from "./cost-policy.js";
import { type ResolvedOptions, resolveOptions } from "./options.js";
import type { CompactOptions, WarningLevel } from "./types.js";

export interface TriggerDecision {
  /** True when the context should be compacted now. */
  compact: boolean;
  /**
   * Which condition fired, or why not: `pays_off` is the cost policy's (past the floor, the
   * excess read since the last compaction pays for the cache a compaction breaks), and so is
   * `cold_cache` (past the floor, the provider's cache expired since `cacheLastReadAt`).
   */
  reason: "over_threshold" | "under_reserve" | "pays_off" | "cold_cache" | "within_limits";
  tokens: number;
  contextWindow: number;
  /**
   * Where compaction may start, in tokens: policy `window`, `threshold × window`; policy `cost`,
   * `floor × window` (or the limit, when lower).
   */
  triggerTokens: number;
  /** Window − reserve: what the context may hold. */
  budget: number;
  warningLevel: WarningLevel;
  /**
   * Policy `cost`: the state to carry to the next decision when this one does not compact (the
   * excess read now includes this turn). Undefined when the caller passed none: the policy then
   * decides statelessly.
   */
  cacheState?: CacheState;
}

export function warningLevelFor(
  tokens: number,
  resolved: Pick<ResolvedOptions, "budget" | "contextWindow">,
): WarningLevel {
  if (tokens > resolved.contextWindow) return "critical";
  if (tokens > resolved.budget) return "warning";
  return "none";
}

/**
 * What a deep compaction is expected to leave when no state says: a summary, the tail and the
 * newest turn (the research's estimate before a session's first compaction).
 */
function expectedCompactedTokens(resolved: ResolvedOptions): number {
  return resolved.summaryMinTokens + resolved.tailTokens + 1_000;
}

export function decideTrigger(tokens: number, resolved: ResolvedOptions): TriggerDecision {
  const thresholdTokens = Math.floor(resolved.threshold * resolved.contextWindow);
  const forced =
    tokens > resolved.budget
      ? "under_reserve"
      : tokens > thresholdTokens
        ? "over_threshold"
        : undefined;
  const base = {
    tokens,
    contextWindow: resolved.contextWindow,
    budget: resolved.budget,
    warningLevel: warningLevelFor(tokens, resolved),
  };
  if (resolved.policy === "window") {
    const reason = forced ?? "within_limits";
    return { ...base, compact: reason !== "within_limits", reason, triggerTokens: thresholdTokens };
  }
  const floorTokens = Math.floor(resolved.floor * resolved.contextWindow);
  const cost = decideCostCompaction({
    tokens,
    floorTokens,
    pricing: resolved.pricing,
    state: resolved.cacheState,
    expectedCompactedTokens: expectedCompactedTokens(resolved),
    summarizerCostTokens: resolved.summarizerCostTokens,
    coldCache: isCacheCold(
      resolved.cacheLastReadAt,
      resolved.now,
      cacheLifetimeMs(resolved.pricing.caching.kind),
    ),
  });
  const costReason = cost.reason === "cold_cache" ? "cold_cache" : "pays_off";
  const reason = forced ?? (cost.compact ? costReason : "within_limits");
  return {
    ...base,
    compact: reason !== "within_limits",
    reason,
    triggerTokens: Math.min(floorTokens, resolved.limit),
    ...(resolved.cacheState === undefined
      ? {}
      : { cacheState: { ...resolved.cacheState, excessTokens: cost.excessTokens } }),
  };
}

/**
 * Whether a context of `tokens` tokens for `model` should be compacted under
 * these options. Use `countMessageTokens` to get `tokens` from messages.
 */
export function shouldCompact(
  state: { model: string; tokens: number },
  options?: CompactOptions,
): TriggerDecision {
  const given: unknown = state;
  if (typeof given !== "object" || given === null) {
    throw new InvalidOptionsError(
      "state",
      'expected { model, tokens }, e.g. { model: "gpt-4o", tokens: 90_000 }',
    );
  }
  const { model, tokens } = given as Partial<Record<"model" | "tokens", unknown>>;
  if (typeof model !== "string") {
    throw new InvalidOptionsError("model", "expected the model name as a string, e.g. `gpt-4o`");
  }
  if (typeof tokens !== "number" || !Number.isFinite(tokens) || tokens < 0) {
    throw new InvalidOptionsError(
      "tokens",
      `expected the context's token count (countMessageTokens(messages, model)), got ${JSON.stringify(tokens) ?? String(tokens)}`,
    );
  }
  return decideTrigger(tokens, resolveOptions(model, options));
}
