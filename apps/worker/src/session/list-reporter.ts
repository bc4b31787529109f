/**
 * @module session/list-reporter
 * How a session's object keeps its row in the user's session list (the
 * user's Durable Object) current without making appends wait on it.
 *
 * A new session is reported before its first answer returns (one cross-object
 * call, once), so it is in the list as soon as the client knows it exists; a
 * deletion too, so it is gone from the list when DELETE answers. Other changes
 * (appends, compactions) are coalesced: at most one report per interval
 * (`SESSION_LIST_REPORT_MS`, default 5 s), sent in the background, and a
 * trailing one after the interval carries the last change of a burst. Reports
 * carry absolute figures read when they are sent, and go out one at a time in
 * order, so a late one never overwrites a newer one and a report never lands
 * after the deletion it preceded. A failed report is logged and dropped: the
 * list lags until the next change, the session itself is never affected.
 *
 * The timer lives in memory: an object evicted within the interval after a
 * burst leaves the list that much behind until its next change (the alarm is
 * the compaction's, and a session's row is a summary, not a record).
 */

import { errorFields, logLine } from "../log/log-lines";
import type { SessionReport } from "../user/session-list";

export interface ListReporterDeps {
  /** The session's current figures, or undefined once it is gone. */
  read(): { userId: string; report: SessionReport } | undefined;
  send(userId: string, report: SessionReport): Promise<void>;
  forget(userId: string, sessionId: string): Promise<void>;
  /** Keeps the object alive for background work. */
  waitUntil(promise: Promise<unknown>): void;
  intervalMs: number;
}

export class ListReporter {
  #chain: Promise<void> = Promise.resolve();
  #lastSentAt = Number.NEGATIVE_INFINITY;
  #timer: { handle: ReturnType<typeof setTimeout>; done: () => void } | undefined;

  constructor(private readonly deps: ListReporterDeps) {}

  /** Runs `task` after every report queued before it; its failure is logged, never thrown. */
  #enqueue(what: string, task: () => Promise<void>): Promise<void> {
    const next = this.#chain.then(task).catch((error: unknown) => {
      logLine({ type: "session_list_report_failed", level: "warn", what, ...errorFields(error) });
    });
    this.#chain = next;
    return next;
  }

  #sendNow(): Promise<void> {
    this.#lastSentAt = Date.now();
    return this.#enqueue("report", async () => {
      const current = this.deps.read();
      if (current !== undefined) await this.deps.send(current.userId, current.report);
    });
  }

  /** The session was created: reported now; the caller awaits it before answering. */
  created(): Promise<void> {
    this.#cancelTimer();
    return this.#sendNow();
  }

  /** The session changed: reported now if the interval passed, else once it has (in the background). */
  changed(): void {
    const wait = this.#lastSentAt + this.deps.intervalMs - Date.now();
    if (wait <= 0 && this.#timer === undefined) {
      this.deps.waitUntil(this.#sendNow());
      return;
    }
    if (this.#timer !== undefined) return;
    this.deps.waitUntil(
      new Promise<void>((done) => {
        const handle = setTimeout(
          () => {
            this.#timer = undefined;
            this.#sendNow().then(done, done);
          },
          Math.max(0, wait),
        );
        this.#timer = { handle, done };
      }),
    );
  }

  /** The session was deleted: removed from the list after any report in flight; the caller awaits it. */
  deleted(userId: string, sessionId: string): Promise<void> {
    this.#cancelTimer();
    return this.#enqueue("delete", () => this.deps.forget(userId, sessionId));
  }

  #cancelTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer.handle);
    this.#timer.done();
    this.#timer = undefined;
  }
}
