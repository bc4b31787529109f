/**
 * @module session/store/message-store
 * Messages in SQLite: the append-only transcript and the compacted view. A
 * SQLite row holds at most 2 MB, so a message is stored as UTF-8 JSON cut into
 * 1 MiB chunks: the first inline in its row, the others in `condense_chunks`.
 * Cutting bytes (not UTF-16 units) never splits a character in a way that
 * could be lost, because the chunks are only decoded once joined.
 */

import type { ChatMessage } from "@condense/core";
import type { TranscriptTotals } from "./session-record";

export const CHUNK_BYTES = 1024 * 1024;

type Owner = "t" | "v";

export interface StoredMessage {
  /** Transcript seq, or view position. */
  key: number;
  role: string;
  tokens: number;
  message: ChatMessage;
}

export interface TranscriptRow extends StoredMessage {
  createdAt: number;
  byteLength: number;
}

type RowShape = {
  key: number;
  role: string;
  tokens: number;
  byteLength: number;
  chunkCount: number;
  body: ArrayBuffer;
  createdAt: number;
};

const encoder = new TextEncoder();
// One for the isolate: a compaction reads every message of the session, and workerd's
// constructor showed as an eighth of a compaction's profile when each message made its own.
// `decode` without `stream` keeps no state between calls, so sharing it is safe.
const decoder = new TextDecoder();

/** `bytes` cut into chunks of at most `CHUNK_BYTES` (one, empty, for no bytes). */
export function toChunks(bytes: Uint8Array): ArrayBuffer[] {
  const chunks: ArrayBuffer[] = [];
  for (let offset = 0; offset < bytes.length || chunks.length === 0; offset += CHUNK_BYTES) {
    chunks.push(bytes.slice(offset, offset + CHUNK_BYTES).buffer);
  }
  return chunks;
}

export class MessageStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  #writeChunks(owner: Owner, id: number, chunks: ArrayBuffer[]): void {
    for (let idx = 1; idx < chunks.length; idx++) {
      this.#sql.exec(
        "INSERT INTO condense_chunks (owner, id, idx, data) VALUES (?, ?, ?, ?)",
        owner,
        id,
        idx,
        chunks[idx],
      );
    }
  }

  #decode(owner: Owner, row: RowShape): ChatMessage {
    let bytes = new Uint8Array(row.body);
    if (row.chunkCount > 1) {
      const whole = new Uint8Array(row.byteLength);
      whole.set(bytes, 0);
      let offset = bytes.length;
      const rest = this.#sql.exec<{ data: ArrayBuffer }>(
        "SELECT data FROM condense_chunks WHERE owner = ? AND id = ? ORDER BY idx",
        owner,
        row.key,
      );
      for (const chunk of rest) {
        const part = new Uint8Array(chunk.data);
        whole.set(part, offset);
        offset += part.length;
      }
      bytes = whole;
    }
    return JSON.parse(decoder.decode(bytes)) as ChatMessage;
  }

  /** Appends one message to the transcript, with its token count for the session's model. */
  appendTranscript(seq: number, message: ChatMessage, tokens: number, createdAt: number): number {
    const bytes = encoder.encode(JSON.stringify(message));
    const chunks = toChunks(bytes);
    this.#sql.exec(
      `INSERT INTO condense_transcript (seq, role, tokens, byte_length, chunk_count, body, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      seq,
      message.role,
      tokens,
      bytes.length,
      chunks.length,
      chunks[0],
      createdAt,
    );
    this.#writeChunks("t", seq, chunks);
    return bytes.length;
  }

  /** Transcript messages with seq > `after`, oldest first, at most `limit` and about `maxBytes`. */
  readTranscript(
    after: number,
    limit = Number.MAX_SAFE_INTEGER,
    maxBytes = Number.MAX_SAFE_INTEGER,
  ): TranscriptRow[] {
    const cursor = this.#sql.exec<RowShape>(
      `SELECT seq AS key, role, tokens, byte_length AS byteLength, chunk_count AS chunkCount, body,
         created_at AS createdAt
       FROM condense_transcript WHERE seq > ? ORDER BY seq LIMIT ?`,
      after,
      Math.min(limit, Number.MAX_SAFE_INTEGER),
    );
    const rows: TranscriptRow[] = [];
    let bytes = 0;
    for (const row of cursor) {
      // Always at least one row, so a page can make progress past a single huge message.
      if (rows.length > 0 && bytes + row.byteLength > maxBytes) break;
      bytes += row.byteLength;
      rows.push({
        key: row.key,
        role: row.role,
        tokens: row.tokens,
        message: this.#decode("t", row),
        createdAt: row.createdAt,
        byteLength: row.byteLength,
      });
    }
    return rows;
  }

  /** One transcript message, or undefined. */
  transcriptAt(seq: number): TranscriptRow | undefined {
    return this.readTranscript(seq - 1, 1).find((row) => row.key === seq);
  }

  /** Replaces the stored token count of one transcript message (the session's model changed). */
  setTranscriptTokens(seq: number, tokens: number): void {
    this.#sql.exec("UPDATE condense_transcript SET tokens = ? WHERE seq = ?", tokens, seq);
  }

  /** Replaces the stored token count of one view message (the session's model changed). */
  setViewTokens(pos: number, tokens: number): void {
    this.#sql.exec("UPDATE condense_view SET tokens = ? WHERE pos = ?", tokens, pos);
  }

  /**
   * Token total of transcript messages with seq > `after`. With the transcript's `totals` (the
   * session's counters: seqs run 1…count without a gap), only the shorter side of `after` is
   * summed, and nothing at either end: a sum over a 200k-token transcript on every append was
   * most of what an append cost (issue 29).
   */
  tokensAfter(after: number, totals?: TranscriptTotals): { tokens: number; count: number } {
    if (totals === undefined) return this.#sumAfter(after);
    if (after <= 0) return { ...totals };
    if (after >= totals.count) return { tokens: 0, count: 0 };
    const count = totals.count - after;
    if (count <= after) return this.#sumAfter(after);
    const before = this.#sql
      .exec<{ tokens: number | null }>(
        "SELECT SUM(tokens) AS tokens FROM condense_transcript WHERE seq <= ?",
        after,
      )
      .one();
    return { tokens: totals.tokens - (before.tokens ?? 0), count };
  }

  #sumAfter(after: number): { tokens: number; count: number } {
    const row = this.#sql
      .exec<{ tokens: number | null; count: number }>(
        "SELECT SUM(tokens) AS tokens, COUNT(*) AS count FROM condense_transcript WHERE seq > ?",
        after,
      )
      .one();
    return { tokens: row.tokens ?? 0, count: row.count };
  }

  /** Replaces the compacted view by `messages` (with their token counts). */
  replaceView(messages: readonly { message: ChatMessage; tokens: number }[]): void {
    this.#sql.exec("DELETE FROM condense_view");
    this.#sql.exec("DELETE FROM condense_chunks WHERE owner = 'v'");
    messages.forEach(({ message, tokens }, pos) => {
      const bytes = encoder.encode(JSON.stringify(message));
      const chunks = toChunks(bytes);
      this.#sql.exec(
        "INSERT INTO condense_view (pos, role, tokens, byte_length, chunk_count, body) VALUES (?, ?, ?, ?, ?, ?)",
        pos,
        // OpenAI Responses items (openai-strategy views) have a type instead of a role.
        message.role ?? (message as { type?: string }).type ?? "item",
        tokens,
        bytes.length,
        chunks.length,
        chunks[0],
      );
      this.#writeChunks("v", pos, chunks);
    });
  }

  /** Messages in the compacted view. */
  viewCount(): number {
    return this.#sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM condense_view").one().n;
  }

  readView(): StoredMessage[] {
    const cursor = this.#sql.exec<RowShape>(
      `SELECT pos AS key, role, tokens, byte_length AS byteLength, chunk_count AS chunkCount, body,
         0 AS createdAt
       FROM condense_view ORDER BY pos`,
    );
    return [...cursor].map((row) => ({
      key: row.key,
      role: row.role,
      tokens: row.tokens,
      message: this.#decode("v", row),
    }));
  }
}
