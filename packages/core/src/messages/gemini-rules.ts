/**
 * @module messages/gemini-rules
 * Gemini's rules for a conversation: it starts with a user turn after the
 * system instruction, a model turn's function calls are answered by the
 * function responses right after it, and no turn or text part is empty.
 */

import type { MessageProblem } from "../errors/condense-error.js";
import { ambiguousCallIds } from "./call-ids.js";
import {
  callsOf,
  misplacedResult,
  onlySystemMessages,
  problem,
  unanswered,
} from "./call-problems.js";
import type { ChatMessage } from "./types.js";

function isEmptyContent(message: ChatMessage): boolean {
  const content = message.content;
  if (content === null || content === "") return true;
  if (typeof content === "string") return false;
  return content.length === 0;
}

export function validateGemini(messages: readonly ChatMessage[]): MessageProblem[] {
  const problems = ambiguousCallIds(messages);
  const conversation = messages
    .map((message, index) => ({ message, index }))
    .filter(({ message }) => message.role !== "system" && message.role !== "developer");
  const first = conversation[0];
  if (first === undefined) {
    problems.push(...onlySystemMessages(messages, "Gemini"));
    return problems;
  }
  if (first.message.role !== "user") {
    problems.push(
      problem(
        first.index,
        "role",
        "starts_with_model",
        `Gemini needs the conversation to start with a user turn (after the system instruction), not a ${first.message.role} message; add a user message before it`,
      ),
    );
  }
  // Model turn = consecutive assistant messages; its function calls must be answered by the tool messages right after it.
  let pending: Map<string, { at: number; callIndex: number }> | undefined;
  let modelTurnStart = -1;
  const closePending = (where: string): void => {
    if (!pending) return;
    for (const [id, { at, callIndex }] of pending)
      problems.push(unanswered(at, callIndex, id, where));
    pending = undefined;
  };
  conversation.forEach(({ message, index }, position) => {
    const previous = conversation[position - 1]?.message;
    if (message.role === "assistant") {
      if (previous?.role !== "assistant") {
        closePending(`before message ${index}`);
        modelTurnStart = index;
      }
      const calls = callsOf(message);
      if (calls.length > 0) {
        pending ??= new Map();
        calls.forEach((call, callIndex) => {
          pending?.set(call.id, { at: index, callIndex });
        });
      }
      if (isEmptyContent(message) && calls.length === 0) {
        problems.push(
          problem(
            index,
            "content",
            "empty_parts",
            "Gemini rejects a model turn without parts; remove the message or give it text",
          ),
        );
      }
      return;
    }
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (pending && id !== undefined && pending.has(id)) {
        pending.delete(id);
        return;
      }
      const expected = `Gemini needs function responses directly after the model turn with the calls${modelTurnStart >= 0 ? ` (message ${modelTurnStart})` : ""}`;
      problems.push(misplacedResult(messages, index, id, expected));
      return;
    }
    closePending(`before message ${index}`);
    if (isEmptyContent(message)) {
      problems.push(
        problem(
          index,
          "content",
          "empty_parts",
          "Gemini rejects a turn without parts; remove the message or give it text",
        ),
      );
    } else if (Array.isArray(message.content)) {
      message.content.forEach((part, partIndex) => {
        if (part.type === "text" && part.text === "") {
          problems.push(
            problem(
              index,
              `content[${partIndex}]`,
              "empty_parts",
              "Gemini rejects an empty text part; remove it",
            ),
          );
        }
      });
    }
  });
  closePending("(the conversation ends)");
  return problems;
}
