/**
 * @module session/gateway-context
 * The context a gateway request is served, by reference to its own history: the
 * session's compacted view, then the request's history from where the view
 * ends, with the pinned messages inserted as `/context` inserts them. The
 * transcript after the view is that history, so it is neither read nor sent
 * back. A turn asks for it once its history is appended; an overflow retry asks
 * again after compacting.
 *
 * It is the request's own context as long as the view covers only messages of
 * the request's history: when other messages were appended after the request's
 * (an answer another request left behind), they are not in its context, and its
 * tokens are counted up to its own last seq. When the view covers more than the
 * request's history, or another generation started, there is none (undefined):
 * the request's history is then no longer the session's.
 */

import type { ChatMessage } from "@condense/core";
import { contextSize, measureContext, readViewState } from "./context-view";
import { currentGeneration } from "./generations";
import { type MemoryInsert, withMemoryPinned } from "./memory-context";
import type { MessageStore } from "./message-store";
import { type SessionRow, saveServed } from "./session-record";
import { readSettings } from "./settings";

/**
 * A gateway turn's context by reference: the request's own history from `historyFrom` on (its
 * empty turns left out), after the compacted `view`, with `pinned` inserted as `/context` inserts
 * them.
 */
export interface GatewayContextByReference {
  view: ChatMessage[];
  /** When the view holds OpenAI compaction items: those items, which only the Responses API carries. */
  openaiItems?: unknown[];
  pinned: ChatMessage[];
  historyFrom: number;
}

export interface GatewayContext {
  /** Context tokens (calibrated, pinned included) and the last seq of the request's history. */
  tokens: number;
  lastSeq: number;
  context: { byReference: GatewayContextByReference };
}

/**
 * The context of the request whose history is generation `generation` up to seq `lastSeq`, or
 * undefined when the session's view is no longer a prefix of that history (see the module). When
 * the session holds nothing after `lastSeq`, this is what the client sends next: it is recorded, as
 * `/context` records what it serves, for a provider's count in a later report to refer to.
 */
export function gatewayContextAt(
  sql: SqlStorage,
  store: MessageStore,
  session: SessionRow,
  request: { generation: number; lastSeq: number },
  memory: MemoryInsert | undefined,
  defaultModel: string | undefined,
): GatewayContext | undefined {
  const current = currentGeneration(sql);
  if (current.generation !== request.generation || session.message_count < request.lastSeq) {
    return undefined;
  }
  const view = readViewState(sql);
  const coveredSeq = view?.covered_seq ?? 0;
  const historyFrom = coveredSeq - current.firstSeq + 1;
  if (historyFrom < 0 || coveredSeq > request.lastSeq) return undefined;
  const settings = withMemoryPinned(readSettings(sql), memory);
  const size = contextSize(sql, store);
  // Messages appended after the request's history are not in its context.
  const tokens = size.tokens - store.tokensAfter(request.lastSeq).tokens;
  const measure = measureContext(session, settings, tokens, defaultModel);
  if (session.message_count === request.lastSeq) {
    saveServed(sql, tokens + measure.pinnedTokens, request.lastSeq);
  }
  const rows = view === undefined ? [] : store.readView().map((row) => row.message);
  const byReference: GatewayContextByReference =
    view?.strategy === "openai"
      ? { view: [], openaiItems: rows, pinned: measure.pinned, historyFrom }
      : { view: rows, pinned: measure.pinned, historyFrom };
  return { tokens: measure.tokens, lastSeq: request.lastSeq, context: { byReference } };
}
