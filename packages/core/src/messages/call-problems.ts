/**
 * @module messages/call-problems
 * The problems every provider's rules report alike, worded alike: a result
 * in the wrong place or answering no call, a call left without its result,
 * and a conversation without a user turn.
 */

import type { MessageProblem } from "../errors/condense-error.js";
import type { ChatMessage } from "./types.js";

export function callsOf(message: ChatMessage): readonly { id: string }[] {
  return message.role === "assistant" && Array.isArray(message.tool_calls)
    ? message.tool_calls
    : [];
}

export function problem(
  index: number,
  path: string,
  kind: string,
  message: string,
): MessageProblem {
  return { index, path, kind, message };
}

/** Index of the assistant message that made call `id` anywhere in the list, if any. */
function callOwner(messages: readonly ChatMessage[], id: string | undefined): number | undefined {
  if (id === undefined) return undefined;
  const index = messages.findIndex((message) => callsOf(message).some((call) => call.id === id));
  return index === -1 ? undefined : index;
}

export function misplacedResult(
  messages: readonly ChatMessage[],
  index: number,
  id: string | undefined,
  expected: string,
): MessageProblem {
  if (id === undefined || id === "") {
    return problem(
      index,
      "tool_call_id",
      "missing_tool_call_id",
      "a tool message must name the call it answers; add the `tool_call_id` of the assistant tool call",
    );
  }
  const owner = callOwner(messages, id);
  if (owner === undefined) {
    return problem(
      index,
      "tool_call_id",
      "orphan_result",
      `tool message answers \`${id}\`, but no assistant message made that call; remove it (repairMessages drops it)`,
    );
  }
  return problem(
    index,
    "tool_call_id",
    "misplaced_result",
    `tool message answers \`${id}\` of message ${owner}, but ${expected}; move it right after message ${owner}'s other results (repairMessages moves it)`,
  );
}

export function unanswered(
  assistant: number,
  callIndex: number,
  id: string,
  where: string,
): MessageProblem {
  return problem(
    assistant,
    `tool_calls[${callIndex}]`,
    "unanswered_call",
    `tool call \`${id}\` has no result ${where}; add a tool message with tool_call_id \`${id}\` right after message ${assistant} (repairMessages adds one)`,
  );
}

/** A conversation of system messages only, which `provider` refuses (nothing for no messages at all). */
export function onlySystemMessages(
  messages: readonly ChatMessage[],
  provider: string,
): MessageProblem[] {
  if (messages.length === 0) return [];
  const message = `the conversation has only system messages; ${provider} needs at least one user message`;
  return [problem(-1, "", "no_user_turn", message)];
}
