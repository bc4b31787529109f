/**
 * @module session/store/view-state
 * `condense_view_state`: the state row of the compacted view (the transcript seq it covers, the
 * compaction that produced it, its tokens and summary, its strategy and, for OpenAI items, the
 * endpoint and key that produced them); the view's messages are the message store's.
 */

import type { ChatMessage } from "@condense/core";
import type { CompactionStrategy } from "../../api/compaction-strategy";
import { insertRow, table } from "../../sqlite/insert-row";
import type { SessionScope } from "./session-scope";

export type ViewState = {
  coveredSeq: number;
  compactionId: number;
  tokens: number;
  summary: string | null;
  strategy: CompactionStrategy;
  openaiEndpoint: string | null;
  openaiKeyFingerprint: string | null;
};

/** `condense_view_state`, one row (`id = 1`): the state's fields and their columns. */
const VIEW_STATE = table<ViewState>(
  "condense_view_state",
  {
    coveredSeq: "covered_seq",
    compactionId: "compaction_id",
    tokens: "tokens",
    summary: "summary",
    strategy: "strategy",
    openaiEndpoint: "openai_endpoint",
    openaiKeyFingerprint: "openai_key_fingerprint",
  },
  { fixed: { id: 1 } },
);

export function readViewState(sql: SqlStorage): ViewState | undefined {
  return sql
    .exec<ViewState>(`SELECT ${VIEW_STATE.select} FROM ${VIEW_STATE.name} WHERE id = 1`)
    .toArray()[0];
}

/** What a commit writes as the new view: the state row and the messages with their token counts. */
export interface ViewCommit {
  coveredSeq: number;
  compactionId: number;
  tokens: number;
  summary: string | null;
  strategy: CompactionStrategy;
  /** For OpenAI items: which endpoint and key produced them. */
  openai?: { endpoint: string; keyFingerprint: string };
  entries: readonly { message: ChatMessage; tokens: number }[];
}

/** Replaces the view whole; run it inside the commit's transaction. */
export function commitView(scope: SessionScope, commit: ViewCommit): void {
  const { sql, store } = scope;
  store.replaceView(commit.entries);
  insertRow(
    sql,
    VIEW_STATE,
    {
      coveredSeq: commit.coveredSeq,
      compactionId: commit.compactionId,
      tokens: commit.tokens,
      summary: commit.summary,
      strategy: commit.strategy,
      openaiEndpoint: commit.openai?.endpoint ?? null,
      openaiKeyFingerprint: commit.openai?.keyFingerprint ?? null,
    },
    { replace: true },
  );
}
