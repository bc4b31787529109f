/**
 * @module user/memory-store
 * A user's memory entries in their Durable Object: create, change, remove,
 * list and search, the limits on count and size, and the refusal of secrets
 * (core `containsSecret`, the redaction the summarizer uses). Every write keeps
 * the FTS5 index (`condense_user_memories_fts`, rowid = the entry's `num`) in
 * step in the caller's transaction. Flush operations go through the same
 * checks, one by one: an operation that fails one is skipped and reported,
 * never an error for the others.
 */

import {
  containsSecret,
  MEMORY_KINDS,
  MEMORY_TEXT_MAX_CHARS,
  type MemoryEntry,
  type MemoryKind,
  type MemoryOperation,
} from "@condense/core";
import { ApiError, invalidQuery, invalidRequest } from "../api/errors";
import { decodeCursor, keysetPage, type PageRequest } from "./cursor";
import { ftsQuery } from "./fts-query";

/**
 * How many entries a user may keep, and how long each may be (characters, after trimming): the
 * engine's limit, which its flush keeps to as well, so what one side writes the other accepts.
 */
export const MEMORY_LIMITS = { maxEntries: 500, maxChars: MEMORY_TEXT_MAX_CHARS } as const;

type Row = {
  num: number;
  id: string;
  text: string;
  kind: string;
  sourceSession: string | null;
  sourceSeq: number | null;
  createdAt: number;
  updatedAt: number;
};

/** The table's columns as the row's camelCase fields (each one `column [AS alias]`). */
const COLUMNS =
  "num, id, text, kind, source_session AS sourceSession, source_seq AS sourceSeq, created_at AS createdAt, updated_at AS updatedAt";

function isKind(kind: string): kind is MemoryKind {
  return (MEMORY_KINDS as readonly string[]).includes(kind);
}

function entryOf(row: Row): MemoryEntry {
  return {
    id: row.id,
    text: row.text,
    kind: isKind(row.kind) ? row.kind : "fact",
    sourceSession: row.sourceSession,
    sourceSeq: row.sourceSeq,
    createdAt: new Date(row.createdAt).toISOString(),
    updatedAt: new Date(row.updatedAt).toISOString(),
  };
}

/** The text as stored (trimmed), or the 4xx that says what is wrong with it. */
export function checkMemoryText(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") {
    throw invalidRequest(
      "body",
      "text",
      `a memory's \`text\` is empty: send 1-${MEMORY_LIMITS.maxChars} characters`,
    );
  }
  if (trimmed.length > MEMORY_LIMITS.maxChars) {
    throw new ApiError(
      400,
      "memory_too_long",
      `a memory holds at most ${MEMORY_LIMITS.maxChars} characters; this one has ${trimmed.length}: shorten it or split it in several entries`,
      { maxChars: MEMORY_LIMITS.maxChars, chars: trimmed.length },
    );
  }
  if (containsSecret(trimmed)) {
    throw new ApiError(
      422,
      "memory_secret",
      "the text holds what looks like a secret (an API key, token, password or private key); secrets never enter memory: remove it and send the text again",
    );
  }
  return trimmed;
}

function checkKind(kind: string): MemoryKind {
  if (isKind(kind)) return kind;
  throw invalidRequest("body", "kind", `unknown kind: use one of ${MEMORY_KINDS.join(", ")}`);
}

function memoryNotFound(id: string): ApiError {
  return new ApiError(
    404,
    "memory_not_found",
    `no memory ${JSON.stringify(id)}: list them with GET /v1/memory`,
  );
}

function rowById(sql: SqlStorage, id: string): Row | undefined {
  return sql
    .exec<Row>(`SELECT ${COLUMNS} FROM condense_user_memories WHERE id = ?`, id)
    .toArray()[0];
}

export function memoryCount(sql: SqlStorage): number {
  return sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM condense_user_memories").one().n;
}

export interface NewMemory {
  text: string;
  kind: string;
  sourceSession?: string | null;
  sourceSeq?: number | null;
}

/** Adds an entry; run it inside a transaction. */
export function addMemory(sql: SqlStorage, input: NewMemory, now: number): MemoryEntry {
  const text = checkMemoryText(input.text);
  const kind = checkKind(input.kind);
  if (memoryCount(sql) >= MEMORY_LIMITS.maxEntries) {
    throw new ApiError(
      409,
      "memory_full",
      `this user's memory holds its ${MEMORY_LIMITS.maxEntries} entries: delete or merge some (DELETE /v1/memory/{id}, PATCH) before adding more`,
      { maxEntries: MEMORY_LIMITS.maxEntries },
    );
  }
  const id = `mem_${crypto.randomUUID().replaceAll("-", "")}`;
  const row = sql
    .exec<Row>(
      `INSERT INTO condense_user_memories (id, text, kind, source_session, source_seq, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
      id,
      text,
      kind,
      input.sourceSession ?? null,
      input.sourceSeq ?? null,
      now,
      now,
    )
    .one();
  sql.exec("INSERT INTO condense_user_memories_fts (rowid, text) VALUES (?, ?)", row.num, text);
  return entryOf(row);
}

/** Changes an entry's text or kind; run it inside a transaction. */
export function updateMemory(
  sql: SqlStorage,
  id: string,
  patch: { text?: string; kind?: string; sourceSeq?: number },
  now: number,
): MemoryEntry {
  const text = patch.text === undefined ? undefined : checkMemoryText(patch.text);
  const kind = patch.kind === undefined ? undefined : checkKind(patch.kind);
  const row = rowById(sql, id);
  if (row === undefined) throw memoryNotFound(id);
  const updated = sql
    .exec<Row>(
      `UPDATE condense_user_memories SET text = ?, kind = ?, source_seq = ?, updated_at = ?
       WHERE num = ? RETURNING ${COLUMNS}`,
      text ?? row.text,
      kind ?? row.kind,
      patch.sourceSeq ?? row.sourceSeq,
      now,
      row.num,
    )
    .one();
  if (text !== undefined) {
    sql.exec("DELETE FROM condense_user_memories_fts WHERE rowid = ?", row.num);
    sql.exec("INSERT INTO condense_user_memories_fts (rowid, text) VALUES (?, ?)", row.num, text);
  }
  return entryOf(updated);
}

/** Removes an entry; run it inside a transaction. */
export function deleteMemory(sql: SqlStorage, id: string): void {
  const row = rowById(sql, id);
  if (row === undefined) throw memoryNotFound(id);
  sql.exec("DELETE FROM condense_user_memories WHERE num = ?", row.num);
  sql.exec("DELETE FROM condense_user_memories_fts WHERE rowid = ?", row.num);
}

/** Removes every entry (and its index row); returns their ids. Run it inside a transaction. */
export function deleteAllMemories(sql: SqlStorage): string[] {
  const ids = sql
    .exec<{ id: string }>("SELECT id FROM condense_user_memories")
    .toArray()
    .map((row) => row.id);
  sql.exec("DELETE FROM condense_user_memories");
  sql.exec("DELETE FROM condense_user_memories_fts");
  return ids;
}

export function getMemory(sql: SqlStorage, id: string): MemoryEntry {
  const row = rowById(sql, id);
  if (row === undefined) throw memoryNotFound(id);
  return entryOf(row);
}

/** Every entry, newest first. */
export function allMemories(sql: SqlStorage): MemoryEntry[] {
  return sql
    .exec<Row>(`SELECT ${COLUMNS} FROM condense_user_memories ORDER BY num DESC`)
    .toArray()
    .map(entryOf);
}

/** One page, newest first; the cursor is the key of the last entry served (new entries come before it). */
export function listMemories(
  sql: SqlStorage,
  request: PageRequest,
): { memories: MemoryEntry[]; nextCursor: string | null } {
  const { limit, cursor } = request;
  const before =
    cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor<[number]>(cursor, ["number"])[0];
  const rows = sql
    .exec<Row>(
      `SELECT ${COLUMNS} FROM condense_user_memories WHERE num < ? ORDER BY num DESC LIMIT ?`,
      before,
      limit + 1,
    )
    .toArray();
  const { page, nextCursor } = keysetPage(rows, limit, (row) => [row.num]);
  return { memories: page.map(entryOf), nextCursor };
}

export interface MemoryHit {
  memory: MemoryEntry;
  snippet: string;
  /** Higher is better (BM25, sign turned). */
  score: number;
}

/**
 * Entries matching `text` by BM25, best first: every word required (`all`, the search route) or any
 * of them (`any`, relevance to a session's recent text). A query SQLite still refuses is a 400.
 */
export function ftsSearch(
  sql: SqlStorage,
  text: string,
  limit: number,
  mode: "all" | "any",
): MemoryHit[] {
  const match = ftsQuery(text, mode);
  if (match === undefined) return [];
  try {
    return sql
      .exec<Row & { snippet: string; rank: number }>(
        `SELECT ${COLUMNS.split(", ")
          .map((column) => `m.${column}`)
          .join(", ")},
           snippet(condense_user_memories_fts, 0, '«', '»', '…', 24) AS snippet,
           bm25(condense_user_memories_fts) AS rank
         FROM condense_user_memories_fts JOIN condense_user_memories m ON m.num = condense_user_memories_fts.rowid
         WHERE condense_user_memories_fts MATCH ?
         ORDER BY rank LIMIT ?`,
        match,
        limit,
      )
      .toArray()
      .map((row) => ({ memory: entryOf(row), snippet: row.snippet, score: -row.rank }));
  } catch (error) {
    throw invalidQuery(
      `the query could not be searched (${error instanceof Error ? error.message : String(error)}): use plain words`,
    );
  }
}

export interface ApplyResult {
  applied: number;
  skipped: Array<{ index: number; reason: string }>;
  entries: MemoryEntry[];
}

/**
 * Applies a flush's operations in order, each on its own: one that carries a secret, breaks a limit
 * or names an entry the store does not hold is skipped with its reason. Run it inside a transaction.
 * `entries` are the entries added or replaced.
 */
export function applyOperations(
  sql: SqlStorage,
  ops: readonly MemoryOperation[],
  source: { sessionId: string },
  now: number,
): ApplyResult {
  const result: ApplyResult = { applied: 0, skipped: [], entries: [] };
  ops.forEach((op, index) => {
    try {
      if (op.op === "add") {
        result.entries.push(
          addMemory(
            sql,
            {
              text: op.text,
              kind: op.kind,
              sourceSession: source.sessionId,
              sourceSeq: op.sourceSeq ?? null,
            },
            now,
          ),
        );
      } else if (op.op === "replace") {
        result.entries.push(
          updateMemory(
            sql,
            op.id,
            {
              text: op.text,
              ...(op.kind !== undefined ? { kind: op.kind } : {}),
              ...(op.sourceSeq !== undefined ? { sourceSeq: op.sourceSeq } : {}),
            },
            now,
          ),
        );
      } else if (op.op === "remove") {
        deleteMemory(sql, op.id);
      } else {
        throw invalidRequest("body", "op", "unknown operation: use add, replace or remove");
      }
      result.applied++;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      result.skipped.push({ index, reason: error.code });
    }
  });
  return result;
}
