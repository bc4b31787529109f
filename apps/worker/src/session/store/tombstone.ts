/**
 * @module session/store/tombstone
 * What a deleted session leaves for a while: the DELETE's answer, so that a
 * retry whose first answer was lost gets it again instead of a 404. It is kept
 * as long as `Idempotency-Key` records are; the object's alarm then drops it,
 * leaving the object empty. A session created again under the same id drops
 * it at its first alarm.
 */

import type { DeleteResponseBody } from "../../api/schemas";
import { IDEMPOTENCY_TTL_MS } from "./idempotency";

const TOMBSTONE_KEY = "condense_deleted";

interface Tombstone {
  answer: DeleteResponseBody;
  expiresAt: number;
}

/**
 * Deletes everything the object stores (its tables included: they are created again on the next
 * use) and leaves the tombstone with `answer`, and the alarm that drops it.
 */
export async function deleteLeavingTombstone(
  storage: DurableObjectStorage,
  answer: DeleteResponseBody,
): Promise<void> {
  await storage.deleteAlarm();
  await storage.deleteAll();
  const expiresAt = Date.now() + IDEMPOTENCY_TTL_MS;
  await storage.put<Tombstone>(TOMBSTONE_KEY, { answer, expiresAt });
  await storage.setAlarm(expiresAt);
}

/** The answer of the deletion this object still holds the tombstone of, if any. */
export async function tombstoneAnswer(
  storage: DurableObjectStorage,
): Promise<DeleteResponseBody | undefined> {
  const tombstone = await storage.get<Tombstone>(TOMBSTONE_KEY);
  return tombstone !== undefined && tombstone.expiresAt > Date.now() ? tombstone.answer : undefined;
}

/**
 * The alarm of an object that holds no session: an expired tombstone is dropped with all that is
 * left (true: the object is empty, its tables gone), an unexpired one waits for a later alarm.
 */
export async function expireTombstone(storage: DurableObjectStorage): Promise<boolean> {
  const tombstone = await storage.get<Tombstone>(TOMBSTONE_KEY);
  if (tombstone === undefined) return false;
  if (tombstone.expiresAt > Date.now()) {
    await storage.setAlarm(tombstone.expiresAt);
    return false;
  }
  await storage.deleteAll();
  return true;
}

/** A session created again after a deletion no longer needs the old one's tombstone. */
export async function dropTombstone(storage: DurableObjectStorage): Promise<void> {
  await storage.delete(TOMBSTONE_KEY);
}
