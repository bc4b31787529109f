/**
 * @module session/status
 * A session's figures as others read them: its status
 * (`GET /v1/sessions/{id}`: counts, the context against its limits, the
 * compactions and their failures, thrashing and the summarizer's breaker,
 * cooldown, calibration and settings) and its
 * row of the user's session list (`list-reporter` sends it). Both count the
 * context from the stored token counts, without loading a message.
 */

import type { SessionStatusBody } from "../api/schemas";
import type { SessionReport } from "../user/session-list";
import { webhookStatus } from "./compaction/compaction-events";
import { compactionCountAndLast } from "./compaction/history";
import { type SummarizerBreaker, summarizerBreakerOf } from "./compaction/summarizer-breaker";
import { type Thrashing, thrashingOf } from "./compaction/thrashing";
import { compactionStatus } from "./context/context-data";
import { contextSize, measureCommitted, measureContext } from "./context/context-measure";
import { currentGeneration } from "./context/generations";
import { sessionBillBody } from "./context/served-turns";
import {
  calibrationOf,
  learnedWindowOf,
  readSession,
  requireSession,
  type SessionKey,
  type SessionRow,
} from "./store/session-record";
import type { SessionScope } from "./store/session-scope";
import { readSettings } from "./store/settings";
import { readViewState } from "./store/view-state";

/** The configured compaction's failures in a row, when it keeps throwing (null while it works). */
function failureOf(session: SessionRow): SessionStatusBody["compaction"]["failure"] {
  if (session.failedAttempts === 0) return null;
  return {
    at: new Date(session.lastFailureAt ?? session.updatedAt).toISOString(),
    message: session.lastFailure ?? "",
    failedAttempts: session.failedAttempts,
    nextAttemptAt: session.retryAt === null ? null : new Date(session.retryAt).toISOString(),
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function thrashingBody(
  thrashing: Thrashing | undefined,
): SessionStatusBody["compaction"]["thrashing"] {
  if (thrashing === undefined) return null;
  return {
    since: iso(thrashing.since),
    refills: thrashing.refills,
    turnsApart: thrashing.turnsApart,
  };
}

function breakerBody(breaker: SummarizerBreaker): SessionStatusBody["compaction"]["summarizer"] {
  const { lastFailure } = breaker;
  return {
    breaker: breaker.state,
    consecutiveFailures: breaker.consecutiveFailures,
    openUntil: breaker.openUntil === null ? null : iso(breaker.openUntil),
    lastFailure:
      lastFailure === null
        ? null
        : { at: iso(lastFailure.at), kind: lastFailure.kind, message: lastFailure.message },
  };
}

/**
 * The status of the session of `key`; `compactionRunning` says whether the object runs a
 * compaction, `cooldownSeconds` is the summarizer's cooldown (the breaker's unit).
 */
export function sessionStatus(
  scope: SessionScope,
  key: SessionKey,
  compactionRunning: boolean,
  cooldownSeconds: number,
): SessionStatusBody {
  const { sql, defaultModel } = scope;
  const session = requireSession(sql, key);
  const settings = readSettings(sql);
  const size = contextSize(scope);
  const measure = measureContext(session, settings, size.tokens, defaultModel);
  const history = compactionCountAndLast(sql);
  const cooldown =
    session.cooldownUntil !== null && session.cooldownUntil > scope.now()
      ? session.cooldownUntil
      : null;
  return {
    sessionId: key.sessionId,
    createdAt: new Date(session.createdAt).toISOString(),
    updatedAt: new Date(session.updatedAt).toISOString(),
    model: measure.model,
    messageCount: session.messageCount,
    transcriptTokens: session.transcriptTokens,
    contextTokens: measure.tokens,
    contextMessageCount: size.count + measure.pinned.length,
    contextWindow: measure.contextWindow,
    budget: measure.budget,
    warningLevel: measure.warningLevel,
    coveredSeq: readViewState(sql)?.coveredSeq ?? 0,
    lastSeq: session.messageCount,
    compactions: history.count,
    lastCompaction: history.last,
    compaction: {
      status: compactionStatus(session, compactionRunning),
      failure: failureOf(session),
      thrashing: thrashingBody(thrashingOf(sql)),
      summarizer: breakerBody(summarizerBreakerOf(sql, scope.now(), cooldownSeconds)),
    },
    overheadTokens: measure.overheadTokens,
    learnedContextWindow: learnedWindowOf(session, measure.model) ?? null,
    generation: currentGeneration(sql).generation,
    cooldownUntil: cooldown === null ? null : new Date(cooldown).toISOString(),
    calibration: calibrationOf(session),
    // Copies, because the API's loose message type wants the index signature a core interface lacks.
    settings: { ...settings, pinned: settings.pinned.map((message) => ({ ...message })) },
    webhook: webhookStatus(sql),
    bill: sessionBillBody(sql, measure.model),
  };
}

/** The session's row of the user's list and whose list it is, or undefined when there is no session. */
export function listReport(
  scope: SessionScope,
): { userId: string; report: SessionReport } | undefined {
  const { sql } = scope;
  const session = readSession(sql);
  if (session === undefined) return undefined;
  const measure = measureCommitted(scope, session, readSettings(sql));
  return {
    userId: session.userId,
    report: {
      sessionId: session.sessionId,
      model: measure.model,
      createdAt: session.createdAt,
      lastActiveAt: session.updatedAt,
      messageCount: session.messageCount,
      tokens: measure.tokens,
      compactions: compactionCountAndLast(sql).count,
    },
  };
}
