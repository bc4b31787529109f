/**
 * @module session/served-context
 * The context the object serves whole: `GET /context`, `/overflow` once it
 * compacted, and a gateway turn whose session moved on while it compacted.
 * The committed snapshot is checked against the asked format, measured with
 * the memory block (when the `memory` setting put one in) counted as a pinned
 * message, and its size recorded as the one served: a provider's count in a
 * later overflow report or append refers to what the client was sent.
 */

import type { MessageFormat } from "@condense/core";
import {
  type ContextData,
  checkContextParts,
  compactionStatus,
  contextData,
  measureContext,
  readSnapshot,
} from "./context-view";
import { type MemoryInsert, withMemoryPinned } from "./memory-context";
import type { MessageStore } from "./message-store";
import { requireSession, type SessionKey, saveServed } from "./session-record";
import { readSettings } from "./settings";

export interface ServeOptions {
  /** Whether the caller waited for a compaction (the context did not fit). */
  waited: boolean;
  /** The asked format, whose parts the context must be able to carry. */
  format?: MessageFormat | undefined;
  /** The user's memories, when the `memory` setting is on (`session/memory-context`). */
  memory?: MemoryInsert | undefined;
  /** Whether the object is running a compaction (its queue is in memory). */
  compactionRunning: boolean;
  defaultModel: string | undefined;
}

/** The committed context of the session of `key`, as the Worker renders it. */
export function serveContext(
  sql: SqlStorage,
  store: MessageStore,
  key: SessionKey,
  options: ServeOptions,
): ContextData {
  const session = requireSession(sql, key);
  const { memory } = options;
  const settings = withMemoryPinned(readSettings(sql), memory);
  const snapshot = readSnapshot(sql, store, session);
  checkContextParts(settings, snapshot.messages, options.format);
  const measure = measureContext(session, settings, snapshot.tokens, options.defaultModel);
  // What the client sends next; a provider's count in a later overflow report refers to it.
  saveServed(sql, snapshot.tokens + measure.pinnedTokens, snapshot.lastSeq);
  const data = contextData(key.sessionId, settings, snapshot, measure, {
    status: compactionStatus(session, options.compactionRunning),
    waited: options.waited,
  });
  if (memory === undefined) return data;
  const { message: _message, ...figures } = memory;
  return { ...data, memory: figures };
}
