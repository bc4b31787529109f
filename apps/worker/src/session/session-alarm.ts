/**
 * @module session/session-alarm
 * What the session object's one alarm does when it fires, and where it is
 * set after each write (`retention` picks the time): it deletes a session
 * idle past its retention, else runs the background compaction an append
 * scheduled once it is due (`compaction/scheduler`; one not yet due waits, the
 * alarm set again for it) or the one a cache gone cold makes worth it
 * (`cold-cache`), retries the compaction events' deliveries that are due
 * (`compaction-events`) and sets the next alarm; on an empty object it expires
 * a deleted session's tombstone.
 */

import { workerConfig } from "../config/worker-config";
import { nextDeliveryAt } from "./compaction/compaction-events";
import type { CompactionScheduler } from "./compaction/scheduler";
import { type ContextMeasure, measureCommitted } from "./context/context-measure";
import type { DeletionOptions } from "./deletion";
import { coldCacheAt } from "./store/cold-cache";
import { armSessionAlarm, isPastRetention } from "./store/retention";
import { readSession, type SessionKey, type SessionRow } from "./store/session-record";
import type { SessionScope } from "./store/session-scope";
import { readSettings } from "./store/settings";
import { dropTombstone, expireTombstone } from "./store/tombstone";

/** What the alarm works on: the object's storage and the parts of it that act. */
export interface AlarmTarget {
  /** The storage as it is: an empty object's (a deleted session's tombstone) is not migrated. */
  storage: DurableObjectStorage;
  env: Env;
  /** The session's tables (migrated on first use), its store and its clock. */
  scope: SessionScope;
  scheduler: CompactionScheduler;
  /** Deletes the session (`deletion`). */
  erase(key: SessionKey, options: DeletionOptions): Promise<void>;
  /** The session's tables are gone: they are created again on next use. */
  tablesDropped(): void;
  /** Delivers the compaction events that are due (`compaction-events`), at most a batch. */
  deliverEvents(): Promise<number>;
}

/**
 * Sets the alarm at the next time something is due (a pending compaction or its retry, an event's
 * delivery, the cold-cache moment) or the retention deadline, unless an earlier one is set.
 * `measured`: the committed context's measure, when the caller took one with nothing written since
 * (an append's answer): it is not taken again.
 */
export async function armAlarm(target: AlarmTarget, measured?: ContextMeasure): Promise<void> {
  const sql = target.scope.sql;
  const session = readSession(sql);
  const retentionMs = workerConfig(target.env).sessionRetentionMs;
  if (session !== undefined) {
    const due = [nextDeliveryAt(sql), coldCompactionAt(target, session, measured)].filter(
      (at) => at !== undefined,
    );
    await armSessionAlarm(
      target.storage,
      session,
      retentionMs,
      due.length > 0 ? Math.min(...due) : undefined,
    );
  }
}

/**
 * When the session's cache goes cold (`cold-cache`), if a compaction may be worth it then: the
 * context is past the floor (the policy's trigger) and the moment is still ahead (once passed, the
 * alarm has had its chance and is not set again until a new turn).
 */
function coldCompactionAt(
  target: AlarmTarget,
  session: SessionRow,
  measured: ContextMeasure | undefined,
): number | undefined {
  const measure =
    measured ?? measureCommitted(target.scope, session, readSettings(target.scope.sql));
  // The measure read the cache's last read (`cacheClock`).
  const at = coldCacheAt(measure.cacheLastReadAt, measure.model);
  return at !== undefined && at > target.scope.now() && measure.tokens >= measure.triggerTokens
    ? at
    : undefined;
}

export async function runAlarm(target: AlarmTarget): Promise<void> {
  const session = readSession(target.scope.sql);
  if (session === undefined) {
    if (await expireTombstone(target.storage)) target.tablesDropped();
    return;
  }
  await dropTombstone(target.storage);
  const now = target.scope.now();
  const retentionMs = workerConfig(target.env).sessionRetentionMs;
  if (isPastRetention(session, retentionMs, now)) {
    const key = { userId: session.userId, sessionId: session.sessionId };
    await target.erase(key, { expiredAfterMs: now - session.updatedAt });
    return;
  }
  // A cache gone cold since the last turn (`cold-cache`): the policy may compact now, free of bust
  // (due at once; this run arms the alarm after it).
  if (!target.scheduler.isBackgroundPending(session)) target.scheduler.markPending("cold_cache");
  const current = readSession(target.scope.sql) ?? session;
  // A compaction not yet due (its delay, its grace, its retry's backoff) waits: the alarm fired
  // sooner for something else, and `armAlarm` sets it again for that time.
  if (target.scheduler.isBackgroundDue(current)) await target.scheduler.runBackground(current);
  await target.deliverEvents();
  await armAlarm(target);
}
