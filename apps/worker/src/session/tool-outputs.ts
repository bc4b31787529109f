/**
 * @module session/tool-outputs
 * The `condense_tool_outputs` index: tool_call_id → the tool's name, the
 * transcript row holding its output, and the compaction that pruned it from
 * the context. Pruned outputs stay retrievable exactly as appended.
 */

import type { ChatMessage, PrunedToolOutput } from "@condense/core";
import type { ToolOutputResponseBody } from "../api/schemas";
import { ApiError } from "../http/errors";
import type { MessageStore } from "./message-store";

/** Records the calls an appended assistant message makes and the output a tool message holds. */
export function indexToolCalls(sql: SqlStorage, message: ChatMessage, seq: number): void {
  if (message.role === "assistant") {
    for (const call of message.tool_calls ?? []) {
      sql.exec(
        `INSERT INTO condense_tool_outputs (tool_call_id, tool_name) VALUES (?, ?)
         ON CONFLICT (tool_call_id) DO UPDATE SET tool_name = excluded.tool_name`,
        call.id,
        call.function.name,
      );
    }
  } else if (message.role === "tool" && message.tool_call_id !== undefined) {
    sql.exec(
      `INSERT INTO condense_tool_outputs (tool_call_id, seq) VALUES (?, ?)
       ON CONFLICT (tool_call_id) DO UPDATE SET seq = excluded.seq, pruned_by = NULL`,
      message.tool_call_id,
      seq,
    );
  }
}

/** A duplicate tool call id, in the engine's problem shape (`details.problems` of a 400). */
export interface CallIdProblem {
  index: number;
  path: string;
  kind: "duplicate_tool_call_id";
  message: string;
}

/**
 * The tool calls of `messages` whose ids an earlier append already used. The engine refuses a
 * repeated id within one list, so a session that stored one could never be compacted again.
 */
export function reusedCallIds(sql: SqlStorage, messages: readonly ChatMessage[]): CallIdProblem[] {
  const problems: CallIdProblem[] = [];
  messages.forEach((message, index) => {
    if (message.role !== "assistant") return;
    (message.tool_calls ?? []).forEach((call, callIndex) => {
      const used = sql
        .exec(
          "SELECT 1 FROM condense_tool_outputs WHERE tool_call_id = ? AND tool_name IS NOT NULL",
          call.id,
        )
        .toArray();
      if (used.length === 0) return;
      problems.push({
        index,
        path: `tool_calls[${callIndex}].id`,
        kind: "duplicate_tool_call_id",
        message: `tool call id ${JSON.stringify(call.id)} is already used by an earlier message of this session; give every tool call a unique id`,
      });
    });
  });
  return problems;
}

/** Marks the outputs a compaction pruned; run it inside the commit's transaction. */
export function markPruned(
  sql: SqlStorage,
  compactionId: number,
  pruned: readonly PrunedToolOutput[],
): void {
  for (const output of pruned) {
    sql.exec(
      `UPDATE condense_tool_outputs SET pruned_by = ?, tool_name = COALESCE(tool_name, ?)
       WHERE tool_call_id = ? AND pruned_by IS NULL AND seq IS NOT NULL`,
      compactionId,
      output.toolName,
      output.toolCallId,
    );
  }
}

/** A tool output exactly as appended, or a 404. */
export function readToolOutput(
  sql: SqlStorage,
  store: MessageStore,
  toolCallId: string,
): ToolOutputResponseBody {
  const row = sql
    .exec<{ tool_name: string | null; seq: number | null; pruned_by: number | null }>(
      "SELECT tool_name, seq, pruned_by FROM condense_tool_outputs WHERE tool_call_id = ?",
      toolCallId,
    )
    .toArray()[0];
  const stored = row?.seq === null || row === undefined ? undefined : store.transcriptAt(row.seq);
  if (row === undefined || stored === undefined) {
    throw new ApiError(
      404,
      "not_found",
      `no tool output with tool_call_id ${JSON.stringify(toolCallId)} in this session`,
    );
  }
  return {
    toolCallId,
    toolName: row.tool_name,
    content: stored.message.content,
    seq: stored.key,
    tokens: stored.tokens,
    pruned: row.pruned_by !== null,
  };
}
