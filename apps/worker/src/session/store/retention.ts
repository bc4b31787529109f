/**
 * @module session/store/retention
 * How long an idle session is kept (`SESSION_RETENTION_DAYS`), and the one
 * alarm of a session's object shared with its background compactions
 * (`compaction/scheduler`): a Durable Object has a single alarm, so each
 * write and each alarm run leaves it at the earliest time something is due —
 * a pending compaction (or a failed one's retry), else the retention deadline
 * (the last activity plus the retention) — unless an earlier alarm is already set (a
 * compaction's, whose run arms the alarm again). The alarm at the deadline
 * deletes the session only if it is still idle; one active since arms the
 * next deadline. A session written before retention was configured gets its
 * deadline at its next write.
 */

import { pendingDueAt, type SessionRow } from "./session-record";

/** When `session` is past its retention: its last activity plus `retentionMs`; undefined when kept forever. */
export function retentionDeadline(
  session: SessionRow,
  retentionMs: number | undefined,
): number | undefined {
  return retentionMs === undefined ? undefined : session.updatedAt + retentionMs;
}

/** Whether `session` has been idle longer than `retentionMs` at `now`. */
export function isPastRetention(
  session: SessionRow,
  retentionMs: number | undefined,
  now: number,
): boolean {
  const deadline = retentionDeadline(session, retentionMs);
  return deadline !== undefined && now >= deadline;
}

/**
 * Sets the alarm to the earliest time something is due for `session` (a pending compaction, or its
 * retry: `pendingDueAt`; `also`: an event's delivery; the retention deadline), unless one at or
 * before it is already set.
 */
export async function armSessionAlarm(
  storage: DurableObjectStorage,
  session: SessionRow,
  retentionMs: number | undefined,
  also?: number,
): Promise<void> {
  const due = [retentionDeadline(session, retentionMs), pendingDueAt(session), also].filter(
    (at) => at !== undefined,
  );
  if (due.length === 0) return;
  const at = Math.min(...due);
  const current = await storage.getAlarm();
  if (current !== null && current <= at) return;
  await storage.setAlarm(at);
}
