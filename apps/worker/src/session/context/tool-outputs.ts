/**
 * @module session/context/tool-outputs
 * The `condense_tool_outputs` index: one row per tool call, keyed by
 * (tool_call_id, occurrence), because several providers and local servers
 * number calls `call_0`, `call_1`… afresh every turn, so an id comes back once
 * its call is answered. A row holds the tool's name, the transcript rows of the
 * call and of its output, and the compaction that pruned the output.
 *
 * Appends are checked against it: a result must answer a call that awaits
 * one (an orphan would make the context invalid for OpenAI, a second result
 * would replace what is stored), and an id may come back only once its call is
 * answered. Pruned outputs stay retrievable exactly as appended: the latest
 * output of an id, or an earlier one by its seq.
 */

import {
  type CallIdState,
  type ChatMessage,
  isPrunePlaceholder,
  type PrunedToolOutput,
  reusedCallMessage,
  ToolCallTracker,
  type ToolOutputKey,
  toolCallName,
  toolResultCalls,
} from "@condense/core";
import { ApiError } from "../../api/errors";
import type { ToolOutputResponseBody } from "../../api/schemas";
import type { SessionScope } from "../store/session-scope";
import type { Snapshot } from "./snapshot";

/** The table's columns as the row's camelCase fields. */
const OUTPUT_COLUMNS = `tool_call_id AS toolCallId, occurrence, tool_name AS toolName, call_seq AS callSeq,
  seq, pruned_by AS prunedBy, closed_by_generation AS closedByGeneration`;

type OutputRow = {
  toolCallId: string;
  occurrence: number;
  toolName: string | null;
  callSeq: number | null;
  seq: number | null;
  prunedBy: number | null;
  /** Set when a new generation started while the call awaited its result (schema v7). */
  closedByGeneration: number | null;
};

/** A problem with the tool traffic of an append, in the engine's problem shape (`details.problems`). */
export interface ToolTrafficProblem {
  index: number;
  path: string;
  kind: "duplicate_tool_call_id" | "orphan_result" | "duplicate_result";
  message: string;
}

function latestCall(sql: SqlStorage, id: string): OutputRow | undefined {
  return sql
    .exec<OutputRow>(
      `SELECT ${OUTPUT_COLUMNS} FROM condense_tool_outputs WHERE tool_call_id = ? ORDER BY occurrence DESC LIMIT 1`,
      id,
    )
    .toArray()[0];
}

/** The call made at transcript seq `at`, in words (rows from before schema v5 have no call seq: 0). */
function callAt(at: number): string {
  return at > 0 ? `the call at seq ${at}` : "an earlier call of this session";
}

/**
 * The problems of appending `messages` after transcript seq `lastSeq`: a call whose id is reused
 * while an earlier call with it still awaits its result, a result that answers no call of the
 * session, and a second result for a call. An empty list means the append may go ahead.
 */
export function checkToolTraffic(
  sql: SqlStorage,
  messages: readonly ChatMessage[],
  lastSeq: number,
): ToolTrafficProblem[] {
  const ids = new Set<string>();
  for (const message of messages) {
    for (const call of message.role === "assistant" ? (message.tool_calls ?? []) : [])
      ids.add(call.id);
    if (message.role === "tool" && message.tool_call_id !== undefined)
      ids.add(message.tool_call_id);
  }
  const initial: Array<[string, CallIdState]> = [];
  const resultSeqs = new Map<string, number>(); // id -> seq of the latest call's result
  const closedBy = new Map<string, number>(); // id -> the generation that closed its latest call
  for (const id of ids) {
    const row = latestCall(sql, id);
    if (row === undefined) continue;
    // A call a new generation closed counts as answered: its id may come back, nothing answers it.
    const closed = row.seq === null ? row.closedByGeneration : null;
    initial.push([
      id,
      {
        occurrence: row.occurrence,
        answered: row.seq !== null || closed !== null,
        at: row.callSeq ?? 0,
      },
    ]);
    if (row.seq !== null) resultSeqs.set(id, row.seq);
    if (closed !== null) closedBy.set(id, closed);
  }
  const tracker = new ToolCallTracker(initial);
  const problems: ToolTrafficProblem[] = [];
  messages.forEach((message, index) => {
    const seq = lastSeq + 1 + index;
    if (message.role === "assistant") {
      (message.tool_calls ?? []).forEach((call, callIndex) => {
        const { unanswered } = tracker.call(call.id, seq);
        if (unanswered === undefined) return;
        problems.push({
          index,
          path: `tool_calls[${callIndex}].id`,
          kind: "duplicate_tool_call_id",
          message: reusedCallMessage(call.id, callAt(unanswered.at)),
        });
      });
      return;
    }
    const id = message.tool_call_id;
    if (message.role !== "tool" || id === undefined) return;
    const result = tracker.result(id);
    if (result.kind === "answer") {
      resultSeqs.set(id, seq);
      return;
    }
    const quoted = JSON.stringify(id);
    const closed = closedBy.get(id);
    if (result.kind === "duplicate" && closed !== undefined && !resultSeqs.has(id)) {
      problems.push({
        index,
        path: "tool_call_id",
        kind: "orphan_result",
        message: `${callAt(result.call?.at ?? 0)} with id ${quoted} belongs to a generation of this session that ended before its result came (generation ${closed} started); append the assistant message that makes the call again first, or drop this message`,
      });
      return;
    }
    problems.push({
      index,
      path: "tool_call_id",
      kind: result.kind === "orphan" ? "orphan_result" : "duplicate_result",
      message:
        result.kind === "orphan"
          ? `tool message answers ${quoted}, but no call of this session has that id, and OpenAI refuses a result without its call; append the assistant message that makes it first, or drop this message`
          : `${callAt(result.call?.at ?? 0)} with id ${quoted} already has its result at seq ${resultSeqs.get(id) ?? "?"}, and a stored output is never replaced; drop this message, or, if the tool ran again, append an assistant message that calls it again first`,
    });
  });
  return problems;
}

/** Records the calls an appended assistant message makes and the output a tool message holds. */
export function indexToolCalls(sql: SqlStorage, message: ChatMessage, seq: number): void {
  if (message.role === "assistant") {
    for (const call of message.tool_calls ?? []) {
      // A new occurrence: `checkToolTraffic` made sure the id's earlier call, if any, is answered.
      sql.exec(
        `INSERT INTO condense_tool_outputs (tool_call_id, occurrence, tool_name, call_seq)
         VALUES (?, COALESCE((SELECT MAX(occurrence) FROM condense_tool_outputs WHERE tool_call_id = ?), 0) + 1, ?, ?)`,
        call.id,
        call.id,
        toolCallName(call),
        seq,
      );
    }
  } else if (message.role === "tool" && message.tool_call_id !== undefined) {
    sql.exec(
      `UPDATE condense_tool_outputs SET seq = ?
       WHERE tool_call_id = ? AND seq IS NULL
         AND occurrence = (SELECT MAX(occurrence) FROM condense_tool_outputs WHERE tool_call_id = ?)`,
      seq,
      message.tool_call_id,
      message.tool_call_id,
    );
  }
}

/** Transcript seqs of the tool outputs of a snapshot, by `occurrence:toolCallId` as the engine numbers them. */
export type OutputSeqs = Map<string, number>;

export function outputKey(key: ToolOutputKey): string {
  return `${key.occurrence}:${key.toolCallId}`;
}

function textOf(message: ChatMessage | undefined): string {
  const content = message?.content;
  if (typeof content === "string") return content;
  return (content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

/**
 * The transcript seq of every tool output of `snapshot.messages`, keyed as the engine keys the
 * outputs it prunes (call id and occurrence in that list). Outputs after the view carry their seq.
 * The view holds no seqs, but every output a compaction removed from it was marked pruned, so its
 * outputs still whole are the latest unpruned rows of their id up to the seq it covers (aligned from
 * the end, which also fits a view of OpenAI items that keeps only recent ones).
 */
export function outputSeqs(sql: SqlStorage, snapshot: Snapshot): OutputSeqs {
  const seqs: OutputSeqs = new Map();
  const inView = new Map<string, string[]>(); // id -> keys of its whole outputs in the view, in order
  for (const [index, call] of toolResultCalls(snapshot.messages)) {
    const seq = snapshot.seqs[index] ?? null;
    if (seq !== null) {
      seqs.set(outputKey(call), seq);
    } else if (!isPrunePlaceholder(textOf(snapshot.messages[index]))) {
      inView.set(call.toolCallId, [...(inView.get(call.toolCallId) ?? []), outputKey(call)]);
    }
  }
  for (const [id, keys] of inView) {
    const rows = sql
      .exec<{ seq: number }>(
        `SELECT seq FROM condense_tool_outputs
         WHERE tool_call_id = ? AND seq <= ? AND pruned_by IS NULL ORDER BY seq`,
        id,
        snapshot.coveredSeq,
      )
      .toArray();
    const offset = rows.length - keys.length;
    keys.forEach((key, i) => {
      const row = rows[offset + i];
      if (row !== undefined) seqs.set(key, row.seq);
    });
  }
  return seqs;
}

/** How the engine's placeholders name a pruned output: its id and the seq `GET /tool-outputs/{id}?seq=` takes. */
export function outputReference(seqs: OutputSeqs): (key: ToolOutputKey) => string {
  return (key) => {
    const seq = seqs.get(outputKey(key));
    return seq === undefined
      ? `tool call id ${key.toolCallId}`
      : `tool call id ${key.toolCallId} (seq ${seq})`;
  };
}

/**
 * How the marker of an output cut to its head and tail (core `fitContext`) names the whole one: its
 * id and the route that serves it, as the output is still partly in the context.
 */
export function cutOutputReference(
  seqs: OutputSeqs,
  sessionId: string,
): (key: ToolOutputKey) => string {
  return (key) => {
    const seq = seqs.get(outputKey(key));
    const path = `/v1/sessions/${encodeURIComponent(sessionId)}/tool-outputs/${encodeURIComponent(key.toolCallId)}`;
    return `tool call id ${key.toolCallId} (GET ${path}${seq === undefined ? "" : `?seq=${seq}`})`;
  };
}

/** Marks the outputs a compaction pruned, found by their seqs; run it inside the commit's transaction. */
export function markPruned(
  sql: SqlStorage,
  compactionId: number,
  pruned: readonly PrunedToolOutput[],
  seqs: OutputSeqs,
): void {
  for (const output of pruned) {
    const seq = seqs.get(outputKey(output));
    if (seq === undefined) continue;
    sql.exec(
      `UPDATE condense_tool_outputs SET pruned_by = ?, tool_name = COALESCE(tool_name, ?)
       WHERE seq = ? AND pruned_by IS NULL`,
      compactionId,
      output.toolName,
      seq,
    );
  }
}

function outputRow(sql: SqlStorage, toolCallId: string, seq?: number): OutputRow | undefined {
  const rows =
    seq === undefined
      ? sql.exec<OutputRow>(
          `SELECT ${OUTPUT_COLUMNS} FROM condense_tool_outputs WHERE tool_call_id = ? AND seq IS NOT NULL
           ORDER BY occurrence DESC LIMIT 1`,
          toolCallId,
        )
      : sql.exec<OutputRow>(
          `SELECT ${OUTPUT_COLUMNS} FROM condense_tool_outputs WHERE tool_call_id = ? AND seq = ?`,
          toolCallId,
          seq,
        );
  return rows.toArray()[0];
}

/** The seq of the output of the previous (`<`) or next (`>`) call with the same id, or null. */
function neighbourSeq(sql: SqlStorage, row: OutputRow, direction: "<" | ">"): number | null {
  const order = direction === "<" ? "DESC" : "ASC";
  const neighbour = sql
    .exec<{ seq: number }>(
      `SELECT seq FROM condense_tool_outputs
       WHERE tool_call_id = ? AND seq IS NOT NULL AND occurrence ${direction} ?
       ORDER BY occurrence ${order} LIMIT 1`,
      row.toolCallId,
      row.occurrence,
    )
    .toArray()[0];
  return neighbour?.seq ?? null;
}

/** A tool output exactly as appended: the latest of `toolCallId`, or the one at `seq`; else a 404. */
export function readToolOutput(
  scope: SessionScope,
  toolCallId: string,
  seq?: number,
): ToolOutputResponseBody {
  const { sql, store } = scope;
  const row = outputRow(sql, toolCallId, seq);
  const stored = row?.seq === null || row === undefined ? undefined : store.transcriptAt(row.seq);
  if (row === undefined || stored === undefined) {
    const id = JSON.stringify(toolCallId);
    throw new ApiError(
      404,
      "not_found",
      seq === undefined
        ? `no tool output with tool_call_id ${id} in this session`
        : `no tool output with tool_call_id ${id} at seq ${seq} in this session; leave out \`seq\` for the latest output of that id`,
    );
  }
  return {
    toolCallId,
    toolName: row.toolName,
    content: stored.message.content,
    seq: stored.key,
    occurrence: row.occurrence,
    previousSeq: neighbourSeq(sql, row, "<"),
    nextSeq: neighbourSeq(sql, row, ">"),
    tokens: stored.tokens,
    pruned: row.prunedBy !== null,
  };
}
