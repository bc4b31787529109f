/**
 * @module session/overflow
 * `POST /v1/sessions/{id}/overflow`: a provider refused the context as too
 * long. What the error states is learned first: a window below the one in use
 * is the provider's real one for the session's model from then on, and its
 * count of the prompt calibrates the estimate against the context the client
 * last fetched. Then the context is compacted, forced, until it fits its
 * budget (at most `MAX_OVERFLOW_PASSES` compactions). Anything but an
 * overflow (a rate limit, a quota) is a 422 that changes nothing.
 */

import { isContextOverflowError, type MessageFormat, parseOverflowTokens } from "@condense/core";
import { ApiError } from "../api/errors";
import type { CompactionScheduler } from "./compaction/scheduler";
import { checkFormatAvailable, checkPartsAvailableNow } from "./context/context-formats";
import { measureCommitted } from "./context/context-measure";
import { calibrateWithProviderCount } from "./context/provider-counts";
import {
  requireSession,
  type SessionCall,
  type SessionKey,
  saveLearnedWindow,
  servedTokens,
  setExhaustedSeq,
} from "./store/session-record";
import { inTransaction, type SessionScope } from "./store/session-scope";
import { readSettings } from "./store/settings";

/** A reported provider error, and the format the context is asked for in. */
export interface OverflowInput {
  error: { status?: number; message: string; body?: unknown };
  format?: MessageFormat;
}

const MAX_OVERFLOW_PASSES = 3;

/**
 * Checks the report (an overflow, for a context the asked format can carry now) and learns what the
 * error states, in one transaction. Returns the prompt's tokens as the provider counted them, if it
 * said.
 */
export function learnFromOverflow(
  scope: SessionScope,
  key: SessionKey,
  input: OverflowInput,
): number | null {
  const sql = scope.open().sql;
  const session = requireSession(sql, key);
  checkFormatAvailable(sql, input.format);
  if (!isContextOverflowError(input.error)) {
    throw new ApiError(
      422,
      "not_an_overflow",
      "the reported error is not a context-window overflow (rate measure, quota and other errors are not compacted away); handle it as it is",
    );
  }
  checkPartsAvailableNow(scope, session, input.format);
  const stated = parseOverflowTokens(input.error);
  const settings = readSettings(sql);
  const measure = measureCommitted(scope, session, settings);
  inTransaction(scope, () => {
    // A window below the one we use is the provider's real one for this model: keep to it from now on.
    const limit = stated?.limit;
    if (limit !== undefined && Number.isInteger(limit) && limit > 0) {
      if (limit < measure.contextWindow) saveLearnedWindow(sql, limit, measure.model);
    }
    // The provider's count of what it was sent: the context the client last fetched, if it is still
    // the one it holds (a compaction since does not change it), else the current one. Only the
    // input's count: a wording that adds the output allowance (`N + max_tokens > L`) states it apart.
    if (stated?.inputTokens !== undefined) {
      calibrateWithProviderCount(scope, session, settings, {
        reportedTokens: stated.inputTokens,
        estimate: servedTokens(session),
      });
    }
    // The provider refused the context, so the stored "as far as it goes" mark no longer holds.
    setExhaustedSeq(sql, null);
  });
  return stated?.inputTokens ?? null;
}

/** Compacts, forced, until the context fits its budget or a pass commits nothing. Returns the passes. */
export async function compactOverflow(
  scope: SessionScope,
  scheduler: CompactionScheduler,
  call: SessionCall,
): Promise<number> {
  let passes = 0;
  while (passes < MAX_OVERFLOW_PASSES) {
    passes++;
    const result = await scheduler.run("overflow", {
      requestId: call.requestId,
      force: true,
      onFailure: "fallback",
    });
    if (result.status !== "committed") break;
    const sql = scope.open().sql;
    const session = requireSession(sql, call);
    const measure = measureCommitted(scope, session, readSettings(sql));
    if (measure.tokens <= measure.budget) break;
  }
  return passes;
}
