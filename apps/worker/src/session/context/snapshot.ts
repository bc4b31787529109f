/**
 * @module session/context/snapshot
 * The committed context at one moment, read whole.
 *
 * Compaction is a view over the transcript, which is never rewritten: the
 * context is the view (the messages the last compaction produced, covering
 * transcript seq ≤ N) followed by every transcript message with seq > N, with
 * the pinned messages re-injected after the leading system messages.
 */

import { type ChatMessage, toCanonical } from "@condense/core";
import { readSession, type SessionRow } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { readViewState, type ViewState } from "../store/view-state";

/** The committed context at one moment; a compaction works on one and commits against its epoch. */
export interface Snapshot {
  epoch: string;
  view: ViewState | undefined;
  coveredSeq: number;
  lastSeq: number;
  /** Canonical context without pinned messages: the view's messages, then the transcript after it. */
  messages: ChatMessage[];
  /** Per message of `messages`: its transcript seq, or null for a message of the view. */
  seqs: (number | null)[];
  /**
   * Per message of `messages`: its stored count, `messageTokens(message, model)` for the session's
   * model (stored ones are recounted when it changes); null where no count of that message is stored
   * (a view of OpenAI items stores counts of the items, not of their canonical messages).
   */
  tokenCounts: (number | null)[];
  /** When the view holds OpenAI items: those items (raw) and the canonical tail. */
  openaiItems?: unknown[];
  /** The transcript messages after the view. */
  tail: ChatMessage[];
  /** Estimated tokens of `messages`, from the stored counts. */
  tokens: number;
}

export function readSnapshot(scope: SessionScope, session: SessionRow): Snapshot {
  const { sql, store } = scope;
  const view = readViewState(sql);
  const coveredSeq = view?.coveredSeq ?? 0;
  const viewRows = view === undefined ? [] : store.readView();
  const tailRows = store.readTranscript(coveredSeq);
  const tail = tailRows.map((row) => row.message);
  const tokens = [...viewRows, ...tailRows].reduce((sum, row) => sum + row.tokens, 0);
  const common = {
    epoch: session.epoch,
    view,
    coveredSeq,
    lastSeq: session.messageCount,
    tail,
    tokens,
  };
  const tailSeqs = tailRows.map((row) => row.key);
  const tailCounts = tailRows.map((row) => row.tokens);
  if (view?.strategy === "openai") {
    // The view rows are OpenAI Responses items (with encrypted compaction content).
    const items = viewRows.map((row) => row.message as unknown);
    const canonical = toCanonical({ format: "responses", messages: items });
    const none = canonical.map(() => null);
    return {
      ...common,
      messages: [...canonical, ...tail],
      seqs: [...none, ...tailSeqs],
      tokenCounts: [...none, ...tailCounts],
      openaiItems: items,
    };
  }
  return {
    ...common,
    messages: [...viewRows.map((row) => row.message), ...tail],
    seqs: [...viewRows.map(() => null), ...tailSeqs],
    tokenCounts: [...viewRows.map((row) => row.tokens), ...tailCounts],
  };
}

/** Whether the session `snapshot` was taken of still exists (it was not deleted, or created again). */
export function isCurrent(sql: SqlStorage, snapshot: Snapshot): boolean {
  return readSession(sql)?.epoch === snapshot.epoch;
}
