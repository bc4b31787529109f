/**
 * @module session/compaction/run
 * One compaction of a session: snapshot the committed context up to the
 * latest seq N (less a trailing tool call still awaiting its results, which
 * stays in the tail for its results to follow: `compaction/open-calls`), let
 * a strategy make the new view (`compaction/openai`, else
 * `compaction/local`; other requests run meanwhile: the input gate does not
 * hold across a fetch), then commit it (`compaction/commit`), or nothing.
 * Appends that arrived during the wait have seq > N and follow the compacted
 * range; a session deleted meanwhile makes the result `discarded`. Callers run
 * it through the object's `CompactionQueue`, one at a time.
 *
 * When the configured compaction (the session's settings, its summarizer, the
 * OpenAI strategy) throws, the failure is recorded on the session; with
 * `onFailure: "fallback"` the deterministic tier then compacts at once, with
 * only the settings the engine accepts, and the event says so.
 */

import { CondenseError, sendableMessages } from "@condense/core";
import { writeDataPoint } from "../../analytics/data-points";
import type { CompactionTrigger } from "../../api/compaction-trigger";
import { workerConfig } from "../../config/worker-config";
import { type CompactionLogBase, logCompaction } from "../../log/log-lines";
import { cacheClock, measureContext } from "../context/context-measure";
import { readSnapshot } from "../context/snapshot";
import { outputSeqs } from "../context/tool-outputs";
import { clearPendingTrigger, readSession, recordFailure } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { readSettings } from "../store/settings";
import { type CommitResult, commitCompaction, type NewView } from "./commit";
import { recordCompactionEvent } from "./compaction-events";
import { isCompactionExhausted } from "./exhaustion";
import type { CompactionFallback } from "./history";
import { type CachedSummaryChannel, fallbackView, type LocalCompaction, localView } from "./local";
import { flushMemory, type MemorySinkFactory, noMemorySink } from "./memory-flush";
import { withoutOpenCalls } from "./open-calls";
import { openAIView } from "./openai";
import { summarizerBreakerOf } from "./summarizer-breaker";
import { thrashingOf } from "./thrashing";

export interface CompactionOptions {
  requestId?: string;
  /** Compact even below the trigger (manual and overflow compactions). */
  force?: boolean;
  instructions?: string;
  focus?: string;
  /**
   * Runs inside the transaction that commits the compaction (or records an unchanged one), after its
   * writes, so what it writes commits with them or not at all (a manual compaction's idempotency record).
   */
  onCommit?: (result: CommitResult) => void;
  /**
   * When the configured compaction throws: `throw` (the default; the alarm retries later) or
   * `fallback`, compact at once with the deterministic tier.
   */
  onFailure?: "throw" | "fallback";
  /** Called once the run recorded its `compaction.started` event (`compaction-events`). */
  onStarted?: () => void;
  /** Summaries through the cache: the channel to the gateway turn's upstream (`gateway/plans/cached-summary`). */
  cachedSummary?: CachedSummaryChannel;
}

/**
 * A commit's result, or one of a run that did not get as far: `not_needed` (within its limits or
 * already exhausted, or nothing to fold in), `gone` (there is no session).
 */
export type RunResult =
  | CommitResult
  | { status: "not_needed" | "gone"; reason?: string; event?: undefined };

/** What went wrong, for people: the engine's messages are written for them; anything else is named only. */
export function describeFailure(error: unknown): string {
  if (CondenseError.isInstance(error)) return error.message;
  const name = error instanceof Error ? error.name : typeof error;
  return `${name}: unexpected error (details in the compaction's log line)`;
}

/** The short code a log line carries for a failure. */
function failureCode(error: unknown): string {
  if (CondenseError.isInstance(error)) return error.code;
  return error instanceof Error ? error.name : typeof error;
}

/**
 * Runs one compaction of the session in `storage` and commits it, or nothing. With the session's
 * `memory` setting on, the flush to the user's memory (`compaction/memory-flush`, through
 * `memorySinks`) starts with it and runs beside it: the commit does not wait for it, its failure
 * is logged and never fails the compaction, and nothing it writes enters the context.
 */
export async function runCompaction(
  scope: SessionScope,
  env: Env,
  trigger: CompactionTrigger,
  options: CompactionOptions,
  memorySinks: MemorySinkFactory = noMemorySink,
): Promise<RunResult> {
  const started = Date.now();
  const sql = scope.open().sql;
  const session = readSession(sql);
  if (session === undefined) return { status: "gone" };
  const settings = readSettings(sql);
  const whole = readSnapshot(scope, session);
  // Whether to compact is a question about the whole context; what is folded in leaves out open calls.
  const measure = measureContext(
    session,
    settings,
    whole.tokens,
    scope.defaultModel,
    cacheClock(scope),
  );
  const snapshot = withoutOpenCalls(whole);
  const log = {
    ...(options.requestId !== undefined ? { requestId: options.requestId } : {}),
    user: session.userId,
    session: session.sessionId,
    trigger,
  };

  if (options.force !== true) {
    const exhausted = isCompactionExhausted(scope.store, session, measure, snapshot.lastSeq);
    if (!measure.compactionDue || exhausted) {
      clearPendingTrigger(sql);
      logCompaction({ ...log, outcome: "not_needed", durationMs: Date.now() - started });
      return {
        status: "not_needed",
        reason: exhausted
          ? "the context was already compacted as far as it goes; append more messages first"
          : "the context is within its limits",
      };
    }
  }
  // Nothing the engine could keep: no message, or only empty turns (it refuses a list of them).
  if (sendableMessages(snapshot.messages).messages.length === 0) {
    clearPendingTrigger(sql);
    return {
      status: "not_needed",
      reason:
        whole.messages.length === 0
          ? "the context is empty"
          : snapshot.messages.length === 0
            ? "the context holds only tool calls awaiting their results; append the results first"
            : "the context holds only empty turns, which are never sent; append a message that says something",
    };
  }

  // Read from the history as it stands before this compaction commits.
  const thrashing = thrashingOf(sql);
  const local: LocalCompaction = {
    env,
    session,
    settings,
    snapshot,
    measure,
    ...(thrashing !== undefined ? { thrashing } : {}),
    breaker: summarizerBreakerOf(sql, scope.now(), workerConfig(env).cooldownSeconds),
    now: scope.now(),
    // Which transcript row each tool output of the snapshot is: the engine names outputs by call id
    // and occurrence, and an id may be reused across turns.
    outputSeqs: outputSeqs(sql, snapshot),
    force: options.force === true,
    ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    ...(options.focus !== undefined ? { focus: options.focus } : {}),
    ...(options.cachedSummary !== undefined ? { cachedSummary: options.cachedSummary } : {}),
  };
  const run = crypto.randomUUID();
  recordCompactionEvent(
    sql,
    "compaction.started",
    run,
    {
      trigger,
      tokens: measure.tokens,
      contextWindow: measure.contextWindow,
      budget: measure.budget,
      strategy: settings.strategy,
    },
    scope.now(),
  );
  options.onStarted?.();
  // Never rejects (see flushMemory); awaited after the commit.
  const flushed = flushMemory({
    env,
    settings,
    snapshot,
    sessionId: session.sessionId,
    userId: session.userId,
    sinkFor: memorySinks,
    log,
  });
  try {
    const result = await compactSnapshot(scope, local, log, started, options, run);
    const event = result.event;
    if (result.status === "committed" && event !== undefined) {
      writeDataPoint(env, {
        kind: "compaction",
        user: session.userId,
        model: measure.model,
        source: trigger,
        tokensIn: event.tokensBefore,
        tokensOut: event.tokensAfter,
        tokensSaved: event.tokensBefore - event.tokensAfter,
        tier: event.tier,
        durationMs: event.durationMs ?? Date.now() - started,
      });
    }
    return result;
  } finally {
    // The flush finishes within this run even when the compaction throws: the queue's next run
    // must not overlap it.
    await flushed;
  }
}

/** Makes the new view of `local.snapshot` (the configured way, else the fallback) and commits it. */
async function compactSnapshot(
  scope: SessionScope,
  local: LocalCompaction,
  log: CompactionLogBase,
  started: number,
  options: CompactionOptions,
  run: string,
): Promise<RunResult> {
  const { env, settings, snapshot, measure } = local;
  let view: NewView;
  let fallback: CompactionFallback | undefined;
  try {
    const viaOpenAI =
      settings.strategy === "openai"
        ? await openAIView(env, log, snapshot, measure.model, started)
        : undefined;
    view = viaOpenAI ?? (await localView(local));
  } catch (error) {
    const sql = scope.open().sql;
    const failedAttempts = recordFailure(sql, describeFailure(error), scope.now());
    const durationMs = Date.now() - started;
    logCompaction({ ...log, outcome: "failed", durationMs, error: failureCode(error) });
    recordCompactionEvent(
      sql,
      "compaction.failed",
      run,
      {
        trigger: log.trigger,
        error: describeFailure(error),
        failedAttempts,
        fallback: options.onFailure === "fallback",
      },
      scope.now(),
    );
    if (options.onFailure !== "fallback") throw error;
    fallback = { failedAttempts, error: describeFailure(error) };
    try {
      view = await fallbackView(local);
    } catch (fallbackError) {
      recordCompactionEvent(
        scope.open().sql,
        "compaction.failed",
        run,
        {
          trigger: log.trigger,
          error: describeFailure(fallbackError),
          failedAttempts,
          fallback: false,
        },
        scope.now(),
      );
      logCompaction({
        ...log,
        outcome: "failed",
        fallback: true,
        durationMs: Date.now() - started,
        error: failureCode(fallbackError),
      });
      throw fallbackError;
    }
  }
  return commitCompaction({
    scope,
    snapshot,
    measure,
    view,
    thrashing: local.thrashing,
    outputSeqs: local.outputSeqs,
    fallback,
    log,
    started,
    onCommit: options.onCommit,
    run,
  });
}
