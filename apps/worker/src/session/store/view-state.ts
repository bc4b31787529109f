/**
 * @module session/store/view-state
 * `condense_view_state`: the state row of the compacted view (the transcript seq it covers, the
 * compaction that produced it, its tokens and summary, its strategy and, for OpenAI items, the
 * endpoint and key that produced them); the view's messages are the message store's.
 */

import type { ChatMessage } from "@condense/core";
import type { CompactionStrategy } from "../../api/compaction-strategy";
import { insertRow } from "../../sqlite/insert-row";
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

export function readViewState(sql: SqlStorage): ViewState | undefined {
  // The columns as the type's fields: snake_case stays in the SQL.
  return sql
    .exec<ViewState>(
      `SELECT covered_seq AS coveredSeq, compaction_id AS compactionId, tokens, summary, strategy,
         openai_endpoint AS openaiEndpoint, openai_key_fingerprint AS openaiKeyFingerprint
       FROM condense_view_state WHERE id = 1`,
    )
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
    "condense_view_state",
    {
      id: 1,
      covered_seq: commit.coveredSeq,
      compaction_id: commit.compactionId,
      tokens: commit.tokens,
      summary: commit.summary,
      strategy: commit.strategy,
      openai_endpoint: commit.openai?.endpoint ?? null,
      openai_key_fingerprint: commit.openai?.keyFingerprint ?? null,
    },
    { replace: true },
  );
}
