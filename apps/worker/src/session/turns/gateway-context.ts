/**
 * @module session/turns/gateway-context
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
 *
 * What is served always fits: a context over its window is fitted
 * (`fit-served`), its stored messages read for it; the history's messages the
 * fit replaced go back with it, and the Worker sends them in place of the
 * request's (or the request is refused with `context_over_window`).
 */

import type { ChatMessage } from "@condense/core";
import { summaryIndex } from "../context/context-data";
import { contextSize, measureContext } from "../context/context-measure";
import { fitServed } from "../context/fit-served";
import { currentGeneration } from "../context/generations";
import { type MemoryInsert, withMemoryPinned } from "../context/memory-context";
import { recordServedTurn } from "../context/served-turns";
import { readSnapshot, type Snapshot } from "../context/snapshot";
import { type SessionRow, saveServed } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { readSettings } from "../store/settings";
import { readViewState } from "../store/view-state";

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
  /**
   * Messages of the history from `historyFrom` on that are served fitted (`fit-served`: outputs
   * pruned or cut so the context fits), by index in that part of the history.
   */
  fitted?: Array<{ index: number; message: ChatMessage }>;
  /**
   * The index in `view` of the message holding the view's summary (`context-data`'s
   * `summaryIndex`), where the gateway's cache breakpoints go; absent when the view has none.
   */
  summary?: number;
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
  scope: SessionScope,
  session: SessionRow,
  request: { generation: number; lastSeq: number },
  memory: MemoryInsert | undefined,
  /** False for a preview (`count_tokens`): what would be served, nothing recorded as served. */
  record = true,
): GatewayContext | undefined {
  const { sql, store, defaultModel } = scope;
  const current = currentGeneration(sql);
  if (current.generation !== request.generation || session.messageCount < request.lastSeq) {
    return undefined;
  }
  const view = readViewState(sql);
  const coveredSeq = view?.coveredSeq ?? 0;
  const historyFrom = coveredSeq - current.firstSeq + 1;
  if (historyFrom < 0 || coveredSeq > request.lastSeq) return undefined;
  const settings = withMemoryPinned(readSettings(sql), memory);
  const size = contextSize(scope, view);
  // Messages appended after the request's history are not in its context (none, as a turn asks).
  const tokens =
    session.messageCount > request.lastSeq
      ? size.tokens - store.tokensAfter(request.lastSeq).tokens
      : size.tokens;
  const measured = measureContext(session, settings, tokens, defaultModel);
  // What is served always fits: over its window, the stored messages are read and fitted.
  const fit =
    tokens > measured.engineWindow
      ? fitServed(
          sql,
          upTo(readSnapshot(scope, session), request.lastSeq),
          measured,
          settings,
          session.sessionId,
        )
      : undefined;
  const measure =
    fit === undefined
      ? measured
      : measureContext(session, settings, fit.snapshot.tokens, defaultModel);
  const servedTokens = fit?.snapshot.tokens ?? tokens;
  if (record && session.messageCount === request.lastSeq) {
    saveServed(sql, servedTokens + measure.pinnedTokens, request.lastSeq);
  }
  // The request goes to the provider: a turn of the session's bill (`served-turns`).
  if (record) {
    recordServedTurn(
      scope,
      session,
      {
        lastSeq: request.lastSeq,
        tokens: servedTokens + measure.pinnedTokens,
        pinnedTokens: measure.pinnedTokens,
        model: measure.model,
      },
      scope.now(),
    );
  }
  const stored = view === undefined ? [] : store.readView().map((row) => row.message);
  // The fitted view's messages (a view of OpenAI items is never fitted), and the history's that
  // the fit replaced, by index after the view's canonical messages.
  const viewLength =
    fit === undefined ? stored.length : fit.snapshot.messages.length - fit.snapshot.tail.length;
  const rows =
    fit === undefined || view?.strategy === "openai"
      ? stored
      : fit.snapshot.messages.slice(0, viewLength);
  const fitted = (fit?.replaced ?? [])
    .filter(({ index }) => index >= viewLength)
    .map(({ index, message }) => ({ index: index - viewLength, message }));
  const byReference: GatewayContextByReference =
    view?.strategy === "openai"
      ? { view: [], openaiItems: stored, pinned: measure.pinned, historyFrom }
      : { view: rows, pinned: measure.pinned, historyFrom };
  if (fitted.length > 0) byReference.fitted = fitted;
  const summary = summaryIndex(rows, view?.summary ?? null);
  if (summary >= 0 && view?.strategy !== "openai") byReference.summary = summary;
  return { tokens: measure.tokens, lastSeq: request.lastSeq, context: { byReference } };
}

/** `snapshot` without the transcript messages after `lastSeq` (appended after the request's history). */
function upTo(snapshot: Snapshot, lastSeq: number): Snapshot {
  const keep = snapshot.seqs.findIndex((seq) => seq !== null && seq > lastSeq);
  if (keep === -1) return snapshot;
  const dropped = snapshot.tokenCounts
    .slice(keep)
    .reduce<number>((sum, count) => sum + (count ?? 0), 0);
  const viewLength = snapshot.messages.length - snapshot.tail.length;
  return {
    ...snapshot,
    messages: snapshot.messages.slice(0, keep),
    seqs: snapshot.seqs.slice(0, keep),
    tokenCounts: snapshot.tokenCounts.slice(0, keep),
    tail: snapshot.tail.slice(0, keep - viewLength),
    tokens: snapshot.tokens - dropped,
    lastSeq,
  };
}
