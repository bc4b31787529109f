/**
 * @module session/context/provider-counts
 * A provider's own count of a prompt (an append's `usage.inputTokens`, the
 * count an overflow error states) folded into the session's calibration,
 * against our estimate of the same prompt: its messages and the fixed
 * overhead a gateway request sent beside them.
 */

import { calibrate, isExactlyCounted } from "../store/calibration";
import { calibrationOf, type SessionRow, saveCalibration } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { modelFor, type SessionSettings } from "../store/settings";
import { contextSize, messagesTokens } from "./context-measure";

/** A provider's count of a prompt, and our estimate of that prompt in engine tokens. */
export interface ProviderCount {
  reportedTokens: number;
  /** Of the messages: by default the committed context, pinned messages included. */
  estimate?: number;
}

/**
 * Calibrates the session with a provider's count (OpenAI models are counted exactly and keep their
 * ratio); returns the session as it now is. Run it in the caller's transaction.
 */
export function calibrateWithProviderCount(
  scope: SessionScope,
  session: SessionRow,
  settings: SessionSettings,
  count: ProviderCount,
): SessionRow {
  const { sql, defaultModel } = scope;
  const model = modelFor(settings, session.lastModel, defaultModel);
  if (isExactlyCounted(model)) return session;
  // The provider counted the request's fixed overhead (its tool definitions) too: left out, it would
  // pass for a larger count per message.
  const ours =
    (count.estimate ?? contextSize(scope).tokens + messagesTokens(settings.pinned, model)) +
    session.overheadTokens;
  const next = calibrate(calibrationOf(session), ours, count.reportedTokens);
  saveCalibration(sql, next);
  return { ...session, calibrationRatio: next.ratio, calibrationSamples: next.samples };
}
