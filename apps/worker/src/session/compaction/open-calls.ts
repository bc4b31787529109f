/**
 * @module session/compaction/open-calls
 * Finds the tool calls at the end of a session that still await results. An
 * agent appends the assistant message that calls a tool, runs the tool, then
 * appends the result: in between, the transcript ends with an open call. A
 * compaction must leave that call out of what it folds in: the engine would
 * otherwise answer it with a placeholder result, and the real result, appended
 * after the compacted range, would then be a second (dropped) answer.
 */

import type { ChatMessage } from "@condense/core";
import type { Snapshot } from "../context/snapshot";

/**
 * How many messages at the end of `messages` form an open tool-call group: the
 * last assistant message with tool calls, when only tool messages follow it
 * and at least one of its calls has no result among them. 0 when there is none.
 */
export function openCallGroupLength(messages: readonly ChatMessage[]): number {
  let start = messages.length - 1;
  while (start >= 0 && messages[start]?.role === "tool") start--;
  const assistant = messages[start];
  const calls = assistant?.role === "assistant" ? (assistant.tool_calls ?? []) : [];
  if (calls.length === 0) return 0;
  const answered = new Set(
    messages.slice(start + 1).map((message) => message.tool_call_id ?? undefined),
  );
  return calls.every((call) => answered.has(call.id)) ? 0 : messages.length - start;
}

/** A snapshot as a compaction folds it in: without the open tool-call group at its end. */
export interface CompactionSnapshot extends Snapshot {
  /** The last seq folded in: `lastSeq` (the last one the compaction saw) less the open group. */
  foldedSeq: number;
  /** Stored tokens of the open group, which stays in the context after the folded range. */
  openCallTokens: number;
}

/** `snapshot` less a trailing open tool-call group (only ever transcript messages after the view). */
export function withoutOpenCalls(snapshot: Snapshot): CompactionSnapshot {
  const held = openCallGroupLength(snapshot.tail);
  if (held === 0) return { ...snapshot, foldedSeq: snapshot.lastSeq, openCallTokens: 0 };
  // Transcript messages all have a stored count.
  const openCallTokens = snapshot.tokenCounts
    .slice(-held)
    .reduce((sum: number, tokens) => sum + (tokens ?? 0), 0);
  return {
    ...snapshot,
    messages: snapshot.messages.slice(0, -held),
    seqs: snapshot.seqs.slice(0, -held),
    tokenCounts: snapshot.tokenCounts.slice(0, -held),
    tail: snapshot.tail.slice(0, -held),
    foldedSeq: snapshot.lastSeq - held,
    tokens: snapshot.tokens - openCallTokens,
    openCallTokens,
  };
}
