/**
 * @module session/compaction/scheduler
 * When a session's compactions run, one at a time through its
 * `CompactionQueue` (a Durable Object's input gate does not hold while a
 * compaction awaits its summarizer): in the background, from the object's
 * alarm, or at once for a caller that waits for the context.
 *
 * A write that puts the context over its trigger marks a background
 * compaction pending (`compaction/pending`), due after `COMPACTION_DELAY_MS`
 * so a burst of appends is compacted once (longer with `cachedSummaries`), and
 * arms the alarm for that time; the alarm, which fires sooner for other work
 * too, runs it only once it is due (and a failed one's retry once its backoff
 * ended). The runtime retries an alarm whose object was evicted mid-way. A
 * background compaction that throws is tried again after a backoff, and its
 * last attempt falls back to the deterministic tier; a caller that waits
 * (context, manual, overflow, gateway) gets that fallback at once. After each
 * compaction the next is scheduled if one is due.
 */

import type { CompactionTrigger } from "../../api/compaction-trigger";
import { type ContextMeasure, measureCommitted } from "../context/context-measure";
import {
  clearPendingTrigger,
  pendingDueAt,
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
   * The alarm of a pending compaction, at the time it is due: set for a new one, and again for an
   * older one whose alarm is gone or later than it is due (the alarm may be the retention's, days
   * away: `retention`). An alarm that fires sooner runs only what is due, and sets itself again for
   * the rest (`session-alarm`).
   */
  async arm(mark: PendingMark): Promise<void> {
    const storage = this.deps.scope.open();
    const session = readSession(storage.sql);
    const at = (session !== undefined ? pendingDueAt(session) : undefined) ?? this.deps.scope.now();
    // Self-healing: a pending compaction (not running) whose alarm is gone or late gets its own, at
    // its retry time if it failed before.
    if (mark === "pending") {
      if (this.running) return;
      const current = await storage.getAlarm();
      if (current !== null && current <= at) return;
    }
    await storage.setAlarm(at);
  }

  /** Whether a background compaction is pending, due or not. */
  isBackgroundPending(session: SessionRow): boolean {
    return session.pendingTrigger !== null;
  }

  /**
   * Whether the alarm has a background compaction to run now: one is pending and due, and a failed
   * one's backoff has ended. An alarm that fires sooner (an event's delivery, the cold-cache moment)
   * leaves it for its own time.
   */
  isBackgroundDue(session: SessionRow): boolean {
    if (!this.isBackgroundPending(session)) return false;
    const due = pendingDueAt(session);
    return due === undefined || due <= this.deps.scope.now();
  }

  /**
   * Marks a background compaction pending without setting the alarm: for the alarm itself, which
   * runs what is due and sets itself again after.
   */
  markPending(trigger: CompactionTrigger): PendingMark | undefined {
    return markPending(this.deps.scope, this.deps.env, trigger);
  }

  /** Schedules a background compaction (an alarm) when the context is over the trigger and none is pending. */
  async scheduleIfNeeded(trigger: CompactionTrigger): Promise<boolean> {
    const { scope } = this.deps;
    const mark = markPending(scope, this.deps.env, trigger);
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
