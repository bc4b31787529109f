/**
 * @module session/deletion
 * Deleting a session from its object: everything the object stores (its
 * tables too: they are created again on the next use), the session's vectors
 * (`semantic-recall`) and its row in the user's list (`list-reporter`). A
 * DELETE leaves the tombstone its retry is answered from (`tombstone`); the
 * retention's alarm leaves nothing (`retention`).
 */

import type { DeleteResponseBody } from "../api/schemas";
import { logLine } from "../log/log-lines";
import type { ListReporter } from "./list-reporter";
import { indexedRowids, type SessionVectors } from "./recall/semantic-recall";
import type { SessionKey } from "./store/session-record";
import { deleteLeavingTombstone } from "./store/tombstone";

export interface DeletionTarget {
  ctx: DurableObjectState;
  /** The session's vectors, when semantic recall is configured. */
  vectors: SessionVectors | undefined;
  reporter: ListReporter;
}

export interface DeletionOptions {
  /** The DELETE's answer, kept as the tombstone; none for a deletion by retention. */
  answer?: DeleteResponseBody;
  /**
   * A deletion by retention: how long the session was idle (logged). Its vectors are awaited (a
   * DELETE's go in the background; a failure leaves ids nothing serves).
   */
  expiredAfterMs?: number;
}

/** Deletes the session of `key`; the caller's schema is gone after it (migrate again on next use). */
export async function deleteSession(
  target: DeletionTarget,
  key: SessionKey,
  options: DeletionOptions = {},
): Promise<void> {
  const { ctx, vectors } = target;
  const storage = ctx.storage;
  const rowids = vectors === undefined ? [] : indexedRowids(storage.sql);
  if (options.answer !== undefined) await deleteLeavingTombstone(storage, options.answer);
  else {
    await storage.deleteAlarm();
    await storage.deleteAll();
  }
  if (vectors !== undefined && rowids.length > 0) {
    const forgotten = vectors.forget(rowids);
    if (options.expiredAfterMs !== undefined) await forgotten;
    else ctx.waitUntil(forgotten);
  }
  await target.reporter.deleted(key.userId, key.sessionId);
  if (options.expiredAfterMs !== undefined) {
    const { userId: user, sessionId: session } = key;
    logLine({ type: "session_expired", user, session, idleMs: options.expiredAfterMs });
  }
}
