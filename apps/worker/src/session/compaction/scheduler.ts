/**
 * @module session/compaction/scheduler
 * When a session's compactions run, one at a time through its
 * `CompactionQueue` (a Durable Object's input gate does not hold while a
 * compaction awaits its summarizer): in the background, from the object's
 * alarm, or at once for a caller that waits for the context.
 *
 * A write that puts the context over its trigger marks a background
 * compaction pending (`compaction/pending`) and arms the alarm, postponed by
 * `COMPACTION_DELAY_MS` so a burst of appends is compacted once; the runtime
 * retries an alarm whose object was evicted mid-way. A background compaction
 * that throws is tried again after a backoff, and its last attempt falls back
 * to the deterministic tier; a caller that waits (context, manual, overflow,
 * gateway) gets that fallback at once. After each compaction the next is
 * scheduled if one is due.
 */

import type { CompactionTrigger } from "../../api/compaction-trigger";
import { workerConfig } from "../../config/worker-config";
import { type ContextMeasure, measureCommitted } from "../context/context-measure";
import {
  clearPendingTrigger,
  readSession,
  recordFailure,
  type SessionRow,
  setExhaustedSeq,
  setRetryAt,
} from "../store/session-record";
import { inTransaction, type SessionScope } from "../store/session-scope";
import { readSettings } from "../store/settings";
import { isCompactionExhausted } from "./exhaustion";
import type { MemorySinkFactory } from "./memory-flush";
import { markPending, type PendingMark } from "./pending";
import { CompactionQueue } from "./queue";
import { type CompactionOptions, describeFailure, type RunResult, runCompaction } from "./run";

/**
 * How long the alarm leaves a session with `cachedSummaries` to the gateway's summary through the
 * cache: Anthropic's cache lifetime, after which the cache is cold and the summary would read
 * nothing from it anyway.
 */
export const CACHED_SUMMARY_GRACE_MS = 5 * 60_000;

/**
 * A background compaction that throws is tried again after these waits; the attempt after the last
 * one falls back to the deterministic tier when the configured compaction throws again.
 */
export const RETRY_BACKOFF_MS: readonly number[] = [30_000, 120_000];
const MAX_CONFIGURED_ATTEMPTS = RETRY_BACKOFF_MS.length + 1;

/** How long the alarm waits before the next attempt, after `failedAttempts` failures in a row. */
export function retryWait(failedAttempts: number): number {
  return RETRY_BACKOFF_MS[Math.min(failedAttempts, RETRY_BACKOFF_MS.length) - 1] ?? 0;
}

/** Whether the background attempt after `failedAttempts` failures in a row is the last one. */
export function isLastAttempt(failedAttempts: number): boolean {
  return failedAttempts + 1 >= MAX_CONFIGURED_ATTEMPTS;
}

export interface SchedulerDeps {
  /** The session's storage (its schema migrated on first use) and its message store. */
  scope: SessionScope;
  env: Env;
  /** Where a compaction's memory flush writes (read at each run: tests replace the object's). */
  memorySinks(): MemorySinkFactory;
  /** A compaction committed: the session's figures changed. */
  committed(): void;
  /** A compaction recorded events (`compaction-events`): they are delivered off the caller's path. */
  eventsRecorded(): void;
}

export class CompactionScheduler {
  readonly #queue = new CompactionQueue();

  constructor(private readonly deps: SchedulerDeps) {}

  /** Whether a compaction is queued or running. */
  get running(): boolean {
    return this.#queue.size > 0;
  }

  /** Runs a compaction after those queued before it, then schedules the next if one is due. */
  run(trigger: CompactionTrigger, options: CompactionOptions): Promise<RunResult> {
    return this.#queue.run(() => this.#compact(trigger, options));
  }

  /**
   * Whether the committed context is over window − reserve and a compaction could still help.
   * `measured`: the committed context's measure, when the caller took one with nothing written since
   * (an append's): it is not taken again.
   */
  isOverBudget(measured?: ContextMeasure): boolean {
    const { scope } = this.deps;
    const sql = scope.open().sql;
    const session = readSession(sql);
    if (session === undefined) return false;
    const measure = measured ?? measureCommitted(scope, session, readSettings(sql));
    return measure.tokens > measure.budget && !isCompactionExhausted(scope.store, session, measure);
  }

  /**
   * For a caller that waits for the context: a compaction when the committed context is over
   * window − reserve, asked again once the queue reaches it (one queued before may have done it). A
   * configured compaction that throws falls back at once; when even that fails, the committed view,
   * still whole, is what the caller serves (the compaction logged the failure): undefined then, as
   * when none was needed.
   */
  async compactIfOverBudget(
    trigger: CompactionTrigger,
    requestId: string | undefined,
  ): Promise<RunResult | undefined> {
    if (!this.isOverBudget()) return undefined;
    try {
      return await this.#queue.run(() =>
        this.isOverBudget()
          ? this.#compact(trigger, { requestId, onFailure: "fallback" })
          : Promise.resolve<RunResult>({ status: "not_needed" }),
      );
    } catch {
      return undefined;
    }
  }

  /**
   * The alarm of a pending compaction: set for a new one, and again for an older one whose alarm is
   * gone or later than it is due (the alarm may be the retention's, days away: `retention`).
   */
  async arm(mark: PendingMark): Promise<void> {
    const storage = this.deps.scope.open();
    const due = this.deps.scope.now() + this.#delayMs();
    // Self-healing: a pending compaction (not running) whose alarm is gone or late gets its own, at
    // its retry time if it failed before.
    if (mark === "pending") {
      if (this.running) return;
      const at = Math.max(due, readSession(storage.sql)?.retryAt ?? 0);
      const current = await storage.getAlarm();
      if (current !== null && current <= at) return;
      await storage.setAlarm(at);
      return;
    }
    await storage.setAlarm(due);
  }

  /**
   * Whether the alarm has a background compaction to run: one is pending. (An alarm set for the
   * retention may run a failed one's retry before its backoff ends; the retry is no worse for it.)
   */
  isBackgroundPending(session: SessionRow): boolean {
    return session.pendingTrigger !== null;
  }

  /** Schedules a background compaction (an alarm) when the context is over the trigger and none is pending. */
  async scheduleIfNeeded(trigger: CompactionTrigger): Promise<boolean> {
    const { scope } = this.deps;
    const mark = markPending(scope, trigger);
    if (mark === undefined) return false;
    await this.arm(mark);
    return true;
  }

  /**
   * The alarm's background compaction of `session`. One that throws is retried with backoff, then
   * falls back to the deterministic tier; this never throws (the runtime's own retries of the alarm
   * would repeat the same failure).
   */
  async runBackground(session: SessionRow): Promise<void> {
    const storage = this.deps.scope.open();
    const sql = storage.sql;
    const lastAttempt = isLastAttempt(session.failedAttempts);
    try {
      await this.run(session.pendingTrigger ?? "alarm", {
        onFailure: lastAttempt ? "fallback" : "throw",
      });
    } catch (error) {
      const now = this.deps.scope.now();
      // A failure outside the configured compaction (its commit) is recorded here.
      const recorded = readSession(sql)?.failedAttempts ?? 0;
      const failed =
        recorded > session.failedAttempts
          ? recorded
          : recordFailure(sql, describeFailure(error), now);
      if (!lastAttempt) {
        const retryAt = now + retryWait(failed);
        setRetryAt(sql, retryAt);
        await storage.setAlarm(retryAt);
        return;
      }
      // Even the deterministic tier failed: nothing more to try until new messages arrive (the
      // failure stays in the status).
      inTransaction(this.deps.scope, () => {
        setRetryAt(sql, null);
        clearPendingTrigger(sql);
        setExhaustedSeq(sql, readSession(sql)?.messageCount ?? session.messageCount);
      });
    }
  }

  /**
   * `COMPACTION_DELAY_MS` postpones background compactions, so a burst of appends is compacted
   * once. With `cachedSummaries` on, the alarm waits at least `CACHED_SUMMARY_GRACE_MS`: the
   * gateway's turn compacts through the cache once its answer is in, and the alarm, which has no
   * channel to the upstream, only takes what that left.
   */
  #delayMs(): number {
    const delay = workerConfig(this.deps.env).compactionDelayMs;
    const cached = readSettings(this.deps.scope.open().sql).cachedSummaries;
    return cached ? Math.max(delay, CACHED_SUMMARY_GRACE_MS) : delay;
  }

  /** Runs one compaction (the caller holds the queue), then schedules the next if one is due. */
  async #compact(trigger: CompactionTrigger, options: CompactionOptions): Promise<RunResult> {
    const { scope, env } = this.deps;
    const onStarted = () => this.deps.eventsRecorded();
    try {
      const result = await runCompaction(
        scope,
        env,
        trigger,
        { ...options, onStarted },
        this.deps.memorySinks(),
      );
      if (result.status !== "not_needed" && result.status !== "gone") {
        await this.scheduleIfNeeded("append");
      }
      if (result.status === "committed") this.deps.committed();
      return result;
    } finally {
      this.deps.eventsRecorded();
    }
  }
}
