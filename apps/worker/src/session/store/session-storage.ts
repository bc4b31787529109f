/**
 * @module session/store/session-storage
 * What the session object lends the modules that read and write its state
 * outside the class (the append transaction, compactions): its storage with
 * the schema in place, and the message store over it.
 */

import type { MessageStore } from "./message-store";

export interface SessionStorage {
  /**
   * The Durable Object's storage with its schema in place. A compaction asks again at commit: a
   * session deleted during its wait took the tables with it, and the commit must find them (empty)
   * to see that and discard.
   */
  open(): DurableObjectStorage;
  /** The transcript and the view. */
  store: MessageStore;
}

/** Runs `work` in one transaction of the session's storage: its writes commit together or not at all. */
export function inTransaction<T>(storage: SessionStorage, work: (sql: SqlStorage) => T): T {
  const durable = storage.open();
  return durable.transactionSync(() => work(durable.sql));
}
