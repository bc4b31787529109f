/**
 * @module session/context/served-context
 * The context the object serves whole: `GET /context`, `/overflow` once it
 * compacted, and a gateway turn whose session moved on while it compacted.
 * The committed snapshot is checked against the asked format, measured with
 * the memory block (when the `memory` setting put one in) counted as a pinned
 * message, and its size recorded as the one served: a provider's count in a
 * later overflow report or append refers to what the client was sent; and as a
 * turn of the session's bill (`served-turns`). A context over its budget is
 * fitted first, or refused (`fit-served`).
 */

import type { MessageFormat } from "@condense/core";
import { requireSession, type SessionKey, saveServed } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { readSettings } from "../store/settings";
import { type ContextData, compactionStatus, contextData } from "./context-data";
import { checkContextParts } from "./context-formats";
import { measureContext } from "./context-measure";
import { fitServed } from "./fit-served";
import { type MemoryInsert, withMemoryPinned } from "./memory-context";
import { recordServedTurn } from "./served-turns";
import { readSnapshot } from "./snapshot";

export interface ServeOptions {
  /** Whether the caller waited for a compaction (the context did not fit). */
  waited: boolean;
  /** The asked format, whose parts the context must be able to carry. */
  format?: MessageFormat | undefined;
  /** The user's memories, when the `memory` setting is on (`session/context/memory-context`). */
  memory?: MemoryInsert | undefined;
  /** Whether the object is running a compaction (its queue is in memory). */
  compactionRunning: boolean;
  /** Only looked at (the inspector): not a model request, so nothing is recorded of it. */
  peek?: boolean;
}

/** The committed context of the session of `key`, as the Worker renders it. */
export function serveContext(
  scope: SessionScope,
  key: SessionKey,
  options: ServeOptions,
): ContextData {
  const { sql } = scope;
  const session = requireSession(sql, key);
  const { memory } = options;
  const settings = withMemoryPinned(readSettings(sql), memory);
  const committed = readSnapshot(scope, session);
  checkContextParts(settings, committed.messages, options.format);
  const measured = measureContext(session, settings, committed.tokens, scope.defaultModel);
  // What is served always fits: over its budget, it is fitted now (`fit-served`), or refused.
  const { snapshot } = fitServed(sql, committed, measured, settings, key.sessionId);
  const measure =
    snapshot === committed
      ? measured
      : measureContext(session, settings, snapshot.tokens, scope.defaultModel);
  if (options.peek === true)
    return withMemoryFigures(
      contextData(key.sessionId, settings, snapshot, measure, {
        status: compactionStatus(session, options.compactionRunning),
        waited: options.waited,
      }),
      memory,
    );
  // What the client sends next; a provider's count in a later overflow report refers to it.
  saveServed(sql, snapshot.tokens + measure.pinnedTokens, snapshot.lastSeq);
  // A model request: the session's bill, and what the cost policy has read since its last compaction.
  recordServedTurn(
    scope,
    session,
    {
      lastSeq: snapshot.lastSeq,
      tokens: snapshot.tokens + measure.pinnedTokens,
      pinnedTokens: measure.pinnedTokens,
      model: measure.model,
    },
    scope.now(),
  );
  const data = contextData(key.sessionId, settings, snapshot, measure, {
    status: compactionStatus(session, options.compactionRunning),
    waited: options.waited,
  });
  return withMemoryFigures(data, memory);
}

/** `data` with the memory block's figures, when it holds one. */
function withMemoryFigures(data: ContextData, memory: MemoryInsert | undefined): ContextData {
  if (memory === undefined) return data;
  const { message: _message, ...figures } = memory;
  return { ...data, memory: figures };
}
