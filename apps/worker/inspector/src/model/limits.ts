/**
 * @module model/limits
 * Where a session's compaction triggers, in tokens. The status reports the
 * window and the budget (window − reserve) but not the trigger, so it is
 * worked out the way the engine does: the smaller of the budget and the
 * threshold's share of the window.
 */

import type { SessionStatus } from "../api/types.ts";

/** The engine's default `threshold` (README: Options), used when the session sets none. */
export const DEFAULT_THRESHOLD = 0.75;

export function triggerTokens(
  status: Pick<SessionStatus, "contextWindow" | "budget" | "settings">,
): number {
  const threshold = status.settings.threshold ?? DEFAULT_THRESHOLD;
  return Math.min(status.budget, Math.floor(threshold * status.contextWindow));
}
