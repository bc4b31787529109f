/**
 * @module user/session-list
 * The user's sessions as their Durable Objects report them: a row per
 * session, replaced whole by each report (reports carry absolute figures, so a
 * lost or repeated one never skews a count), removed when the session is
 * deleted. Listed newest active first, by keyset: the cursor is the
 * (last active, id) of the last row served.
 */

import { decodeCursor, keysetPage, type PageRequest } from "./cursor";

/** What a session's object reports about itself; times in epoch milliseconds. */
export interface SessionReport {
  sessionId: string;
  model: string;
  createdAt: number;
  lastActiveAt: number;
  messageCount: number;
  /** Context tokens (calibrated, pinned messages included), as the session's status reports them. */
  tokens: number;
  compactions: number;
}

export interface SessionListEntry {
  id: string;
  model: string;
  createdAt: string;
  lastActiveAt: string;
  messageCount: number;
  tokens: number;
  compactions: number;
}

type Row = {
  sessionId: string;
  model: string;
  createdAt: number;
  lastActiveAt: number;
  messageCount: number;
  tokens: number;
  compactions: number;
};

function entryOf(row: Row): SessionListEntry {
  return {
    id: row.sessionId,
    model: row.model,
    createdAt: new Date(row.createdAt).toISOString(),
    lastActiveAt: new Date(row.lastActiveAt).toISOString(),
    messageCount: row.messageCount,
    tokens: row.tokens,
    compactions: row.compactions,
  };
}

export function upsertSession(sql: SqlStorage, report: SessionReport): void {
  sql.exec(
    // A report older than the row (one overtaken in flight) changes nothing.
    `INSERT INTO condense_user_sessions
       (session_id, model, created_at, last_active_at, message_count, tokens, compactions)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET model = excluded.model, created_at = excluded.created_at,
       last_active_at = excluded.last_active_at, message_count = excluded.message_count,
       tokens = excluded.tokens, compactions = excluded.compactions
     WHERE excluded.last_active_at >= condense_user_sessions.last_active_at`,
    report.sessionId,
    report.model,
    report.createdAt,
    report.lastActiveAt,
    report.messageCount,
    report.tokens,
    report.compactions,
  );
}

export function removeSession(sql: SqlStorage, sessionId: string): void {
  sql.exec("DELETE FROM condense_user_sessions WHERE session_id = ?", sessionId);
}

/** Every session id the list holds. */
export function allSessionIds(sql: SqlStorage): string[] {
  return sql
    .exec<{ sessionId: string }>("SELECT session_id AS sessionId FROM condense_user_sessions")
    .toArray()
    .map((row) => row.sessionId);
}

/** Empties the list. */
export function removeAllSessions(sql: SqlStorage): void {
  sql.exec("DELETE FROM condense_user_sessions");
}

/** One page, newest active first, and the cursor of the next page (null after the last one). */
export function listSessions(
  sql: SqlStorage,
  request: PageRequest,
): { sessions: SessionListEntry[]; nextCursor: string | null } {
  // The first page starts after a key above every session's (no time reaches it).
  const [at, id] =
    request.cursor === undefined
      ? [Number.MAX_SAFE_INTEGER, ""]
      : decodeCursor<[number, string]>(request.cursor, ["number", "string"]);
  // One row more than asked tells whether there is a next page.
  const rows = sql
    .exec<Row>(
      `SELECT session_id AS sessionId, model, created_at AS createdAt, last_active_at AS lastActiveAt,
         message_count AS messageCount, tokens, compactions
       FROM condense_user_sessions WHERE (last_active_at, session_id) < (?, ?)
       ORDER BY last_active_at DESC, session_id DESC LIMIT ?`,
      at,
      id,
      request.limit + 1,
    )
    .toArray();
  const { page, nextCursor } = keysetPage(rows, request.limit, (row) => [
    row.lastActiveAt,
    row.sessionId,
  ]);
  return { sessions: page.map(entryOf), nextCursor };
}
