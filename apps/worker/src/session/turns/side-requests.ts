/**
 * @module session/turns/side-requests
 * The gateway requests a session answered without taking them into its
 * transcript: side requests (another conversation under the same session
 * header: titles, topic checks, sub-agents, `session/turns/threads`), histories
 * refused even as a generation of their own, and histories that arrived while
 * the session was busy. Each is forwarded statelessly, and kept here with its
 * answer, so that nothing a session answered is lost: its response carries
 * `X-Condense-Side-Request` with the id `GET /side-requests/{id}` reads.
 *
 * A request's history and its answer are JSON in `condense_chunks` (owners
 * `s` and `a`, cut into 1 MiB chunks as transcript messages are). They are kept
 * within a bound, oldest dropped first: side requests resend their whole
 * history every turn, and a sub-agent's later turns hold its earlier ones.
 */

import type { ChatMessage } from "@condense/core";
import { ApiError } from "../../api/errors";
import { currentGeneration } from "../context/generations";
import { toChunks } from "../store/message-store";

/** Why the session did not take a request into its transcript. */
export type SideReason = "other-conversation" | "tool-call-rules" | "busy";

/** The most side requests a session keeps, and the most bytes: beyond either, the oldest go first. */
export const MAX_SIDE_REQUESTS = 200;
export const MAX_SIDE_BYTES = 64 * 1024 * 1024;

export interface SideRequestSummary {
  id: number;
  at: string;
  reason: SideReason;
  /** The session's generation when the request came (the one it did not change). */
  generation: number;
  model: string | null;
  messageCount: number;
  answered: boolean;
}

export interface SideRequestRecord extends SideRequestSummary {
  /** The request's history, canonical. */
  messages: ChatMessage[];
  /** The model's answer, canonical, once complete; null before, or when there was none. */
  answer: ChatMessage[] | null;
}

type SideRow = {
  id: number;
  at: number;
  reason: string;
  generation: number;
  model: string | null;
  messageCount: number;
  answeredAt: number | null;
};

const encoder = new TextEncoder();

function writeBlob(sql: SqlStorage, owner: "s" | "a", id: number, value: unknown): number {
  const bytes = encoder.encode(JSON.stringify(value));
  toChunks(bytes).forEach((chunk, idx) => {
    sql.exec(
      "INSERT INTO condense_chunks (owner, id, idx, data) VALUES (?, ?, ?, ?)",
      owner,
      id,
      idx,
      chunk,
    );
  });
  return bytes.length;
}

function readBlob<T>(sql: SqlStorage, owner: "s" | "a", id: number): T | undefined {
  const chunks = sql
    .exec<{ data: ArrayBuffer }>(
      "SELECT data FROM condense_chunks WHERE owner = ? AND id = ? ORDER BY idx",
      owner,
      id,
    )
    .toArray()
    .map((row) => new Uint8Array(row.data));
  if (chunks.length === 0) return undefined;
  const whole = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.length;
  }
  return JSON.parse(new TextDecoder().decode(whole)) as T;
}

function forget(sql: SqlStorage, id: number): void {
  sql.exec("DELETE FROM condense_chunks WHERE owner IN ('s', 'a') AND id = ?", id);
  sql.exec("DELETE FROM condense_side_requests WHERE id = ?", id);
}

/** Drops the oldest side requests past the bounds, never the newest. */
function keepWithinBounds(sql: SqlStorage, newest: number): void {
  const rows = sql
    .exec<{ id: number; byteLength: number }>(
      "SELECT id, byte_length AS byteLength FROM condense_side_requests ORDER BY id DESC",
    )
    .toArray();
  let count = 0;
  let bytes = 0;
  for (const row of rows) {
    count++;
    bytes += row.byteLength;
    if (row.id !== newest && (count > MAX_SIDE_REQUESTS || bytes > MAX_SIDE_BYTES)) {
      forget(sql, row.id);
    }
  }
}

/** Keeps a side request's history; returns its id and the session's current generation. */
export function saveSideRequest(
  sql: SqlStorage,
  input: { messages: readonly ChatMessage[]; reason: SideReason; model?: string | undefined },
  now: number,
): { id: number; generation: number } {
  const { generation } = currentGeneration(sql);
  const id = sql
    .exec<{ id: number }>(
      `INSERT INTO condense_side_requests (at, reason, generation, model, message_count, byte_length)
       VALUES (?, ?, ?, ?, ?, 0) RETURNING id`,
      now,
      input.reason,
      generation,
      input.model ?? null,
      input.messages.length,
    )
    .one().id;
  const bytes = writeBlob(sql, "s", id, input.messages);
  sql.exec("UPDATE condense_side_requests SET byte_length = ? WHERE id = ?", bytes, id);
  keepWithinBounds(sql, id);
  return { id, generation };
}

/** Keeps the answer of side request `id`; false when it is gone (dropped, or the session deleted). */
export function saveSideAnswer(
  sql: SqlStorage,
  id: number,
  answer: readonly ChatMessage[],
  now: number,
): boolean {
  const row = sql
    .exec<{ answeredAt: number | null }>(
      "SELECT answered_at AS answeredAt FROM condense_side_requests WHERE id = ?",
      id,
    )
    .toArray()[0];
  if (row === undefined || row.answeredAt !== null) return false;
  const bytes = writeBlob(sql, "a", id, answer);
  sql.exec(
    "UPDATE condense_side_requests SET answered_at = ?, byte_length = byte_length + ? WHERE id = ?",
    now,
    bytes,
    id,
  );
  return true;
}

function summary(row: SideRow): SideRequestSummary {
  return {
    id: row.id,
    at: new Date(row.at).toISOString(),
    reason: row.reason as SideReason,
    generation: row.generation,
    model: row.model,
    messageCount: row.messageCount,
    answered: row.answeredAt !== null,
  };
}

const COLUMNS =
  "id, at, reason, generation, model, message_count AS messageCount, answered_at AS answeredAt";

/** The side requests kept after id `after`, oldest first, at most `limit`. */
export function listSideRequests(
  sql: SqlStorage,
  after: number,
  limit: number,
): { sideRequests: SideRequestSummary[]; nextAfter: number | null } {
  const rows = sql
    .exec<SideRow>(
      `SELECT ${COLUMNS} FROM condense_side_requests WHERE id > ? ORDER BY id LIMIT ?`,
      after,
      limit + 1,
    )
    .toArray();
  const page = rows.slice(0, limit);
  return {
    sideRequests: page.map(summary),
    nextAfter: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
  };
}

/** Side request `id` with its history and answer; a 404 when the session does not keep it. */
export function readSideRequest(sql: SqlStorage, sessionId: string, id: number): SideRequestRecord {
  const row = sql
    .exec<SideRow>(`SELECT ${COLUMNS} FROM condense_side_requests WHERE id = ?`, id)
    .toArray()[0];
  if (row === undefined) {
    throw new ApiError(
      404,
      "not_found",
      `session ${JSON.stringify(sessionId)} keeps no side request ${id} (it keeps the latest ${MAX_SIDE_REQUESTS}; GET /v1/sessions/{id}/side-requests lists them)`,
    );
  }
  return {
    ...summary(row),
    messages: readBlob<ChatMessage[]>(sql, "s", id) ?? [],
    answer: row.answeredAt === null ? null : (readBlob<ChatMessage[]>(sql, "a", id) ?? null),
  };
}
