/**
 * @module model/message-state
 * Where each transcript message stands in the current context:
 * - `context`: sent to the model as appended (after the last compaction's range, or kept
 *   verbatim by it: the head and the tail of the view);
 * - `pruned`: a tool output whose place in the context holds a placeholder;
 * - `summarized`: folded into the summary (a tool output's full text is retrievable by id);
 * - `omitted`: an empty turn (an aborted assistant turn, a blank message), which the context
 *   leaves out and the transcript keeps.
 * Derived from `/context` (its messages and `coveredSeq`), since transcript entries carry no flag.
 */

import { type ChatMessage, isEmptyTurn } from "@condense/core";
import type { ChatLike } from "../api/types.ts";
import { messageKey } from "./messages.ts";

export type MessageState = "context" | "pruned" | "summarized" | "omitted";

export const STATE_LABELS: Record<MessageState, string> = {
  context: "in context",
  pruned: "pruned",
  summarized: "summarized",
  omitted: "left out (empty turn)",
};

export interface ContextSnapshot {
  messages: readonly ChatLike[];
  coveredSeq: number;
}

export type StateOf = (entry: { seq: number; message: ChatLike }) => MessageState;

export function messageStates(context: ContextSnapshot): StateOf {
  const verbatim = new Set(context.messages.map(messageKey));
  const toolCallsInContext = new Set(
    context.messages
      .filter((m) => m.role === "tool" && typeof m.tool_call_id === "string")
      .map((m) => m.tool_call_id),
  );
  return ({ seq, message }) => {
    // The transcript holds only messages the engine accepted, so they are chat messages.
    if (isEmptyTurn(message as ChatMessage)) return "omitted";
    if (seq > context.coveredSeq || verbatim.has(messageKey(message))) return "context";
    if (message.role === "tool" && toolCallsInContext.has(message.tool_call_id)) return "pruned";
    return "summarized";
  };
}
