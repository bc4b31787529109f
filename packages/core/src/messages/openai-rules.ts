/**
 * @module messages/openai-rules
 * OpenAI's rules for a conversation (canonical messages are its Chat
 * Completions messages): every call answered once by the tool messages right
 * after it, an id taken again only once its call is answered, no empty turn.
 */

import type { MessageProblem } from "../errors/condense-error.js";
import { ambiguousCallIds } from "./call-ids.js";
import { callsOf, misplacedResult, problem, unanswered } from "./call-problems.js";
import { holdsOpaqueItems } from "./content.js";
import type { ChatMessage } from "./types.js";

/**
 * User and assistant turns that carry nothing (an aborted turn: no text, no image, no tool call),
 * and empty content arrays anywhere: OpenAI rejects both.
 */
function emptyTurns(messages: readonly ChatMessage[]): MessageProblem[] {
  const problems: MessageProblem[] = [];
  messages.forEach((message, index) => {
    if (Array.isArray(message.content) && message.content.length === 0) {
      if (message.role !== "user" && message.role !== "assistant") {
        problems.push(
          problem(
            index,
            "content",
            "empty_content",
            "`content` is an empty array, which OpenAI rejects; send a string or at least one part",
          ),
        );
        return;
      }
    }
    if (message.role !== "user" && message.role !== "assistant") return;
    if (callsOf(message).length > 0) {
      if (Array.isArray(message.content) && message.content.length === 0) {
        problems.push(
          problem(
            index,
            "content",
            "empty_content",
            "`content` is an empty array, which OpenAI rejects; send null or a string next to tool calls",
          ),
        );
      }
      return;
    }
    if (hasNothingForOpenAI(message)) {
      problems.push(
        problem(
          index,
          "content",
          "empty_turn",
          `this ${message.role} message has no content and no tool calls (an aborted turn?), which providers reject; remove it (repairMessages drops empty turns) or give it text`,
        ),
      );
    }
  });
  return problems;
}

export function validateOpenAI(messages: readonly ChatMessage[]): MessageProblem[] {
  // OpenAI takes an id again once its call is answered (servers number calls afresh every turn).
  const problems = [...ambiguousCallIds(messages), ...emptyTurns(messages)];
  let open: { index: number; ids: string[]; answered: Set<string> } | undefined;
  const close = (at: number | undefined): void => {
    if (!open) return;
    const where = at === undefined ? "(the conversation ends)" : `before message ${at}`;
    for (const [callIndex, id] of open.ids.entries()) {
      if (!open.answered.has(id)) problems.push(unanswered(open.index, callIndex, id, where));
    }
    open = undefined;
  };
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (open && id !== undefined && open.ids.includes(id)) {
        if (open.answered.has(id)) {
          problems.push(
            problem(
              index,
              "tool_call_id",
              "duplicate_result",
              `call \`${id}\` already has a result; remove this second one (repairMessages drops it)`,
            ),
          );
        } else {
          open.answered.add(id);
        }
        return;
      }
      const expected = open
        ? `it sits among the results of message ${open.index}`
        : "it does not follow its assistant message's results";
      problems.push(misplacedResult(messages, index, id, expected));
      return;
    }
    close(index);
    const calls = callsOf(message);
    if (calls.length > 0) open = { index, ids: calls.map((call) => call.id), answered: new Set() };
  });
  close(undefined);
  return problems;
}

/**
 * No text (empty strings only), no image, no tool call: what OpenAI rejects as an empty turn. A turn
 * carrying opaque Responses items is sent as those items, so it is not empty (as `isEmptyTurn` says).
 */
function hasNothingForOpenAI(message: ChatMessage): boolean {
  if (callsOf(message).length > 0 || holdsOpaqueItems(message)) return false;
  const content = message.content;
  if (content === null) return true;
  if (typeof content === "string") return content === "";
  return content.every((part) => part.type === "text" && part.text === "");
}
