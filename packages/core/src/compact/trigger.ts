/**
 * @module compact/trigger
 * When to compact: the context (system included) is over `threshold × window`,
 * or the free space left is under the reserve.
 */

import { type ResolvedOptions, resolveOptions } from "./options.js";
import type { CompactOptions, WarningLevel } from "./types.js";

export interface TriggerDecision {
  /** True when the context should be compacted now. */
  compact: boolean;
  /** Which condition fired, or why not. */
  reason: "over_threshold" | "under_reserve" | "within_limits";
  tokens: number;
  contextWindow: number;
  /** `threshold × window`, in tokens. */
  triggerTokens: number;
  /** Window − reserve: what the context may hold. */
  budget: number;
  warningLevel: WarningLevel;
}

export function warningLevelFor(
  tokens: number,
  resolved: Pick<ResolvedOptions, "budget" | "contextWindow">,
): WarningLevel {
  if (tokens > resolved.contextWindow) return "critical";
  if (tokens > resolved.budget) return "warning";
  return "none";
}

export function decideTrigger(tokens: number, resolved: ResolvedOptions): TriggerDecision {
  const triggerTokens = Math.floor(resolved.threshold * resolved.contextWindow);
  const reason =
    tokens > resolved.budget
      ? "under_reserve"
      : tokens > triggerTokens
        ? "over_threshold"
        : "within_limits";
  return {
    compact: reason !== "within_limits",
    reason,
    tokens,
    contextWindow: resolved.contextWindow,
    triggerTokens,
    budget: resolved.budget,
    warningLevel: warningLevelFor(tokens, resolved),
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
  return decideTrigger(state.tokens, resolveOptions(state.model, options));
}
