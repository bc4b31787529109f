/**
 * @module rules/chat-rules
 * The OpenAI Chat Completions API's request rules the scripted upstream
 * enforces, with OpenAI's wording: a non-empty `messages` of known roles;
 * every assistant `tool_calls` answered by `tool` messages right after it, one
 * per `tool_call_id`; no `tool` message that answers no call.
 */

import { type JsonObject, objects, text } from "../json.ts";
import type { Violation } from "./violation.ts";

const ROLES = new Set(["system", "developer", "user", "assistant", "tool", "function"]);

function invalid(message: string, param: string, code?: string): Violation {
  return {
    status: 400,
    message,
    param,
    errorType: "invalid_request_error",
    ...(code ? { code } : {}),
  };
}

export function chatRoleViolation(body: JsonObject): Violation | undefined {
  const messages = objects(body.messages);
  if (messages.length === 0) {
    return invalid(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      "messages",
      "empty_array",
    );
  }
  for (const [index, message] of messages.entries()) {
    if (!ROLES.has(text(message.role))) {
      return invalid(
        `Invalid value: '${text(message.role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `messages[${index}].role`,
        "invalid_value",
      );
    }
  }
  return undefined;
}

export function chatToolViolation(body: JsonObject): Violation | undefined {
  const messages = objects(body.messages);
  let pending: string[] = [];
  let pendingAt = -1;
  let open = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role === "tool") {
      const id = text(message.tool_call_id);
      if (!open.has(id)) {
        return invalid(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${index}].role`,
        );
      }
      pending = pending.filter((waiting) => waiting !== id);
      continue;
    }
    if (pending.length > 0) break;
    const calls = message.role === "assistant" ? objects(message.tool_calls) : [];
    pending = calls.map((call) => text(call.id));
    open = new Set(pending);
    pendingAt = index;
  }
  if (pending.length > 0) {
    return invalid(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(", ")}`,
      `messages.[${pendingAt}].role`,
    );
  }
  return undefined;
}

export function chatViolation(body: JsonObject): Violation | undefined {
  return chatRoleViolation(body) ?? chatToolViolation(body);
}
