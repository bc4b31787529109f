/**
 * @module rules/responses-rules
 * The OpenAI Responses API's request rules the test servers enforce,
 * with OpenAI's wording: input items of the types the API knows; every
 * `function_call`, `custom_tool_call` and `local_shell_call` paired with its
 * output by `call_id`
 * (outputs after their calls, none missing); and, with `store: false` (as
 * Codex sends it), reasoning carried only as the `encrypted_content` it was
 * issued with, never by a reference to an item the API did not keep.
 */

import { type JsonObject, objects, text } from "../json.ts";
import { openReasoning } from "./signatures.ts";
import type { Violation } from "./violation.ts";

export const INPUT_ITEM_TYPES = [
  "message",
  "function_call",
  "function_call_output",
  "custom_tool_call",
  "custom_tool_call_output",
  "reasoning",
  "item_reference",
  "compaction",
  "web_search_call",
  "local_shell_call",
  "local_shell_call_output",
  "tool_search_call",
  "tool_search_output",
] as const;

const KNOWN = new Set<string>(INPUT_ITEM_TYPES);

function invalid(message: string, param: string, code?: string): Violation {
  return {
    status: 400,
    message,
    param,
    errorType: "invalid_request_error",
    ...(code ? { code } : {}),
  };
}

export function inputItems(body: JsonObject): JsonObject[] {
  return typeof body.input === "string"
    ? [{ type: "message", role: "user", content: body.input }]
    : objects(body.input);
}

/** An item's type; an input message may leave it out (`{ role, content }`). */
export function itemType(item: JsonObject): string {
  return typeof item.type === "string" ? item.type : "role" in item ? "message" : "";
}

export function itemTypeViolation(body: JsonObject): Violation | undefined {
  for (const [index, item] of inputItems(body).entries()) {
    const type = itemType(item);
    if (!KNOWN.has(type)) {
      return invalid(
        `Invalid value: '${type}'. Supported values are: ${INPUT_ITEM_TYPES.map((name) => `'${name}'`).join(", ")}.`,
        `input[${index}].type`,
        "invalid_value",
      );
    }
  }
  return undefined;
}

const PAIRS = [
  { call: "function_call", output: "function_call_output", noun: "function call" },
  { call: "custom_tool_call", output: "custom_tool_call_output", noun: "custom tool call" },
  { call: "local_shell_call", output: "local_shell_call_output", noun: "local shell call" },
] as const;

export function callPairingViolation(body: JsonObject): Violation | undefined {
  const items = inputItems(body);
  for (const pair of PAIRS) {
    const called = new Set<string>();
    const answered = new Set<string>();
    for (const item of items) {
      const type = itemType(item);
      const callId = text(item.call_id);
      if (type === pair.call) called.add(callId);
      if (type === pair.output) {
        if (!called.has(callId)) {
          return invalid(
            `No tool call found for ${pair.noun} output with call_id ${callId}.`,
            "input",
          );
        }
        answered.add(callId);
      }
    }
    for (const callId of called) {
      if (!answered.has(callId))
        return invalid(`No tool output found for ${pair.noun} ${callId}.`, "input");
    }
  }
  return undefined;
}

export function reasoningViolation(body: JsonObject): Violation | undefined {
  if (body.store !== false) return undefined;
  for (const [index, item] of inputItems(body).entries()) {
    const type = itemType(item);
    const unkept = `Item with id '${text(item.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`;
    if (type === "item_reference") return invalid(unkept, "input");
    if (type !== "reasoning") continue;
    if (item.encrypted_content === undefined || item.encrypted_content === null) {
      return invalid(unkept, "input");
    }
    if (openReasoning(item.encrypted_content) === undefined) {
      return invalid(
        `The encrypted content for item ${text(item.id)} could not be verified.`,
        `input[${index}].encrypted_content`,
        "invalid_encrypted_content",
      );
    }
  }
  return undefined;
}

export function responsesViolation(body: JsonObject): Violation | undefined {
  return itemTypeViolation(body) ?? callPairingViolation(body) ?? reasoningViolation(body);
}
