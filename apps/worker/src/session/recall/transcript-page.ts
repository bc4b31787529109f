/**
 * @module session/recall/transcript-page
 * `GET /v1/sessions/{id}/transcript`: the transcript exactly as appended, a
 * page at a time (at most `limit` messages and about 8 MiB), after a seq. A
 * generation (the gateway starts one when a history does not extend the
 * session's) is a range of seqs: its pages start at its first and end at its
 * last.
 */

import { ApiError } from "../../api/errors";
import type { TranscriptResponseBody } from "../../api/schemas";
import { currentGeneration, generationRange } from "../context/generations";
import type { SessionKey, SessionRow } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";

export type TranscriptPage = Omit<TranscriptResponseBody, "sessionId">;

const TRANSCRIPT_PAGE_BYTES = 8 * 1024 * 1024;

/** The page of `session`'s transcript after seq `after`, in `generation` if one is asked for. */
export function transcriptPage(
  scope: SessionScope,
  key: SessionKey,
  session: SessionRow,
  page: { after: number; limit: number; generation?: number | undefined },
): TranscriptPage {
  const { sql, store } = scope;
  const { after, limit, generation } = page;
  const range = generation === undefined ? undefined : generationRange(sql, generation);
  if (generation !== undefined && range === undefined) {
    throw new ApiError(
      404,
      "not_found",
      `session ${JSON.stringify(key.sessionId)} has no generation ${generation}; its current one is ${currentGeneration(sql).generation}`,
    );
  }
  const lastSeq = range?.lastSeq ?? session.messageCount;
  const rows = store
    .readTranscript(Math.max(after, (range?.firstSeq ?? 1) - 1), limit, TRANSCRIPT_PAGE_BYTES)
    .filter((row) => row.key <= lastSeq);
  const last = rows.at(-1);
  return {
    ...(generation !== undefined ? { generation } : {}),
    messages: rows.map((row) => ({
      seq: row.key,
      role: row.role,
      tokens: row.tokens,
      createdAt: new Date(row.createdAt).toISOString(),
      message: { ...row.message },
    })),
    nextAfter: last !== undefined && last.key < lastSeq ? last.key : null,
  };
}
