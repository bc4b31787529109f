/**
 * @module session/session-alarm
 * What the session object's one alarm does when it fires, and where it is
 * set after each write (`retention` picks the time): it deletes a session
 * idle past its retention, else runs the background compaction an append
 * scheduled when it is due (`compaction/scheduler`), retries the compaction
 * events' deliveries that are due (`compaction-events`) and sets the next
 * alarm; on an empty object it expires a deleted session's tombstone.
 */

import { workerConfig } from "../config/worker-config";
import { nextDeliveryAt } from "./compaction/compaction-events";
import type { CompactionScheduler } from "./compaction/scheduler";
import type { DeletionOptions } from "./deletion";
import { armSessionAlarm, isPastRetention } from "./store/retention";
import { readSession, type SessionKey } from "./store/session-record";
import { dropTombstone, expireTombstone } from "./store/tombstone";

/** What the alarm works on: the object's storage and the parts of it that act. */
export interface AlarmTarget {
  storage: DurableObjectStorage;
  env: Env;
  /** The session's tables, migrated on first use. */
  sql(): SqlStorage;
  scheduler: CompactionScheduler;
  /** Deletes the session (`deletion`). */
  erase(key: SessionKey, options: DeletionOptions): Promise<void>;
  /** The session's tables are gone: they are created again on next use. */
  tablesDropped(): void;
  /** Delivers the compaction events that are due (`compaction-events`), at most a batch. */
  deliverEvents(): Promise<number>;
}

/**
 * Sets the alarm at the next retry (a compaction's, an event's delivery) or retention deadline,
 * unless an earlier one is set.
 */
export async function armAlarm(target: AlarmTarget): Promise<void> {
  const sql = target.sql();
  const session = readSession(sql);
  const retentionMs = workerConfig(target.env).sessionRetentionMs;
  if (session !== undefined) {
    await armSessionAlarm(target.storage, session, retentionMs, nextDeliveryAt(sql));
  }
}

export async function runAlarm(target: AlarmTarget): Promise<void> {
  const session = readSession(target.sql());
  if (session === undefined) {
    if (await expireTombstone(target.storage)) target.tablesDropped();
    return;
  }
  await dropTombstone(target.storage);
  const now = Date.now();
  const retentionMs = workerConfig(target.env).sessionRetentionMs;
  if (isPastRetention(session, retentionMs, now)) {
    const key = { userId: session.userId, sessionId: session.sessionId };
    await target.erase(key, { expiredAfterMs: now - session.updatedAt });
    return;
  }
  if (target.scheduler.isBackgroundPending(session)) await target.scheduler.runBackground(session);
  await target.deliverEvents();
  await armAlarm(target);
}
