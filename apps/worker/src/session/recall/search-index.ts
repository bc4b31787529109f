/**
 * @module session/recall/search-index
 * Recall's index: the session's whole transcript in SQLite FTS5
 * (`condense_search`, schema v9), so nothing a compaction summarized or
 * pruned is out of reach (`session/recall/search` queries it). A message is indexed
 * at append, in the append's transaction (an idempotent retry that appends
 * nothing indexes nothing), and its row is never removed: the transcript is
 * never rewritten. Messages appended before v9 are indexed by a backfill in
 * bounded batches behind a cursor, so appends never wait for a whole
 * transcript.
 */

import { type ChatMessage, toolCallInput, toolCallName } from "@condense/core";
import { logLine } from "../../log/log-lines";
import { inTransaction, type SessionScope } from "../store/session-scope";

/**
 * A message's text is indexed in pieces of about this many characters, one FTS5 row each (rowid =
 * seq × `PIECES_PER_SEQ` + piece): a snippet reads and tokenizes its row's whole text, so small rows
 * keep snippets of huge tool outputs cheap, and no row nears the 2 MB a Durable Object's row holds.
 */
export const PIECE_CHARS = 8 * 1024;
/** Rowids per seq: 4,096 pieces of 8 Ki characters, more than the largest message appended (4 MiB). */
export const PIECES_PER_SEQ = 4096;
/** Transcript rows (and about this many bytes) a backfill step indexes in one transaction. */
export const BACKFILL_ROWS = 250;
const BACKFILL_BYTES = 4 * 1024 * 1024;

interface SearchDocument {
  /** Text parts, tool outputs and tool-call arguments. */
  body: string;
  /** Tool names and tool-call ids (and a message's `name`). */
  names: string;
  toolCallId: string | null;
  toolName: string | null;
}

function contentText(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  return (content ?? [])
    .map((part) => (part.type === "text" ? part.text : ""))
    .filter((text) => text !== "")
    .join("\n");
}

/** What of `message` is searchable; `toolName` is the name of the call a tool message answers. */
export function searchDocument(message: ChatMessage, toolName: string | null): SearchDocument {
  const body = [contentText(message.content)];
  const names: string[] = message.name !== undefined ? [message.name] : [];
  let toolCallId: string | null = null;
  let callName: string | null = null;
  for (const call of message.tool_calls ?? []) {
    body.push(toolCallInput(call));
    names.push(toolCallName(call), call.id);
    toolCallId ??= call.id;
    callName ??= toolCallName(call);
  }
  if (message.role === "tool" && message.tool_call_id !== undefined) {
    toolCallId = message.tool_call_id;
    callName = toolName;
    names.push(message.tool_call_id);
    if (toolName !== null) names.push(toolName);
  }
  return {
    body: body.filter((text) => text !== "").join("\n"),
    names: names.join(" ").slice(0, 4096),
    toolCallId,
    toolName: callName,
  };
}

/** `text` in pieces of about `PIECE_CHARS`, cut at whitespace where there is some near the end. */
export function pieces(text: string): string[] {
  const out: string[] = [];
  let from = 0;
  while (text.length - from > PIECE_CHARS && out.length < PIECES_PER_SEQ - 1) {
    let to = from + PIECE_CHARS;
    const space = text.slice(to - 256, to).search(/\s\S*$/u);
    if (space >= 0) to = to - 256 + space + 1;
    // Never between the halves of a surrogate pair.
    else if (/[\uD800-\uDBFF]/u.test(text.charAt(to - 1))) to--;
    out.push(text.slice(from, to));
    from = to;
  }
  out.push(text.slice(from));
  return out;
}

function toolNameAt(sql: SqlStorage, message: ChatMessage, seq: number): string | null {
  if (message.role !== "tool") return null;
  const row = sql
    .exec<{ toolName: string | null }>(
      "SELECT tool_name AS toolName FROM condense_tool_outputs WHERE seq = ?",
      seq,
    )
    .toArray()[0];
  return row?.toolName ?? null;
}

/**
 * Indexes transcript message `seq`; run it in the transaction that appends it, after its tool calls
 * are recorded (a tool message's name comes from its call).
 */
export function indexMessage(sql: SqlStorage, message: ChatMessage, seq: number): void {
  const doc = searchDocument(message, toolNameAt(sql, message, seq));
  pieces(doc.body).forEach((body, piece) => {
    sql.exec(
      `INSERT INTO condense_search (rowid, body, names, role, tool_call_id, tool_name)
       VALUES (?, ?, ?, ?, ?, ?)`,
      seq * PIECES_PER_SEQ + piece,
      body,
      // Names once per message, so a search by tool name or id counts the message once.
      piece === 0 ? doc.names : "",
      message.role,
      doc.toolCallId,
      doc.toolName,
    );
  });
}

// ------------------------------------------------------------ backfill

type BackfillState = {
  backfillCursor: number;
  backfillTo: number;
};

function backfillState(sql: SqlStorage): BackfillState | undefined {
  return sql
    .exec<BackfillState>(
      "SELECT backfill_cursor AS backfillCursor, backfill_to AS backfillTo FROM condense_search_state WHERE id = 1",
    )
    .toArray()[0];
}

/** Whether every message appended before the index existed is indexed. */
export function isBackfillComplete(sql: SqlStorage): boolean {
  const state = backfillState(sql);
  return state === undefined || state.backfillCursor >= state.backfillTo;
}

/**
 * Indexes the next `rows` messages appended before v9 in one transaction (rows and cursor commit
 * together, so a step cut short leaves nothing half-indexed and nothing indexed twice). Returns
 * whether the backfill is complete.
 */
export function backfillStep(scope: SessionScope, rows = BACKFILL_ROWS): boolean {
  return inTransaction(scope, (sql) => {
    const state = backfillState(sql);
    if (state === undefined || state.backfillCursor >= state.backfillTo) return true;
    const batch = scope.store
      .readTranscript(state.backfillCursor, rows, BACKFILL_BYTES)
      .filter((row) => row.key <= state.backfillTo);
    for (const row of batch) indexMessage(sql, row.message, row.key);
    const cursor = batch.at(-1)?.key ?? state.backfillTo;
    sql.exec("UPDATE condense_search_state SET backfill_cursor = ? WHERE id = 1", cursor);
    return cursor >= state.backfillTo;
  });
}

/**
 * The backfill run in the background by the object: one bounded step per turn of the event loop, so
 * requests (appends) run between steps. The cursor is stored: an eviction mid-way resumes at the
 * next use. Stops when `live` says the session's tables are gone (it was deleted): opening the
 * scope then would create them again. It starts while the schema is migrated (the scope's first
 * `open`), and its first step runs after that `open` returned.
 */
export class BackfillChain {
  /** Whether a chain of steps is under way. */
  #running = false;

  constructor(
    private readonly scope: SessionScope,
    private readonly live: () => boolean,
  ) {}

  /** Starts the chain, unless it is under way. */
  continue(): void {
    if (this.#running) return;
    this.#running = true;
    const step = () => {
      let done = true;
      try {
        done = !this.live() || backfillStep(this.scope);
      } catch (error) {
        // The next use of the object starts again from the stored cursor.
        logLine({
          type: "search_backfill",
          outcome: "failed",
          error: error instanceof Error ? error.name : "unknown",
        });
      }
      if (done) this.#running = false;
      else setTimeout(step, 0);
    };
    setTimeout(step, 0);
  }
}
