/**
 * @module session/store/session-scope
 * What the session object lends the modules that read and write its state
 * outside the class, made once by the object and passed whole instead of
 * loose arguments: its storage with the schema in place, the message store
 * over it, the deployment's default model and the clock.
 */

import type { MessageStore } from "./message-store";
import { forgetSessionRow } from "./session-record";
import { forgetSettings } from "./settings";

export interface SessionScope {
  /**
   * The Durable Object's storage with its schema in place. A compaction asks again at commit: a
   * session deleted during its wait took the tables with it, and the commit must find them (empty)
   * to see that and discard.
   */
  open(): DurableObjectStorage;
  /** `open().sql`: read at each use, so a session deleted since is migrated again, as `open` is. */
  readonly sql: SqlStorage;
  /** The transcript and the view. */
  readonly store: MessageStore;
  /** The deployment's `DEFAULT_MODEL`: the session's model until a request or a setting names one. */
  readonly defaultModel: string | undefined;
  /**
   * The session's time (ms since the epoch): what is stored and compared with what is stored (when
   * a message or a compaction happened, cooldowns, retention, retries, the cache's last read, event
   * deliveries). Tests may pass a fixed one. How long work takes is measured with `Date.now()`.
   */
  now(): number;
}

/** The scope over `open` (the storage, its schema migrated on first use) and `store`. */
export function sessionScope(
  open: () => DurableObjectStorage,
  store: MessageStore,
  defaultModel: string | undefined,
  now: () => number = Date.now,
): SessionScope {
  return {
    open,
    get sql() {
      return open().sql;
    },
    store,
    defaultModel,
    now,
  };
}

/** Runs `work` in one transaction of the session's storage: its writes commit together or not at all. */
export function inTransaction<T>(scope: SessionScope, work: (sql: SqlStorage) => T): T {
  const durable = scope.open();
  try {
    return durable.transactionSync(() => work(durable.sql));
  } catch (error) {
    // Rolled back: what was read after one of its writes is not the session's any more.
    forgetSessionRow(durable.sql);
    forgetSettings(durable.sql);
    throw error;
  }
}
