/**
 * @module compact/trigger
 * When to compact: the context (system included) is over `threshold × window`,
 * or the free space left is under the reserve.
 */

import { InvalidOptionsError } from "../errors/condense-error.js";
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
