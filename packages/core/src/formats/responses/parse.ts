/**
 * @module formats/responses/parse
 * Shape checks of untrusted Responses input items: every problem is collected
 * (`InvalidMessagesError` lists them all), and a well-formed copy is returned.
 * The same checks tell the converter whether items stored in
 * `provider_data.responses.items` are still sendable. Items of a type the
 * engine does not know are not checked: they are forwarded whole, for the
 * provider to judge (its own validation never stands between an agent and its
 * model).
 */

import { reusedCallMessage, ToolCallTracker } from "../../messages/call-ids.js";
import {
  field,
  isRecord,
  ProblemCollector,
  quote,
  type Report,
  textOrList,
  typeName,
  wellFormedDeep,
} from "../../messages/input-checks.js";
import {
  itemNestsTooDeep,
  jsonTextNestsTooDeep,
  MAX_ITEM_NESTING,
  tooDeepMessage,
} from "../../messages/limits.js";
import { isTypeName, typeNameProblem } from "../opaque.js";
import type { ResponseItem } from "./types.js";

const MESSAGE_ROLES = ["user", "assistant", "system", "developer"] as const;
const ITEM_TYPES =
  "message, function_call, function_call_output, custom_tool_call, custom_tool_call_output, reasoning or compaction";
const DETAILS = ["auto", "low", "high"] as const;
/** Parts of user, system and developer messages, and of tool outputs. */
const INPUT_PARTS = ["input_text", "output_text", "input_image", "input_file"];

function checkPart(part: unknown, allowed: readonly string[], path: string, report: Report): void {
  if (!isRecord(part)) {
    report(path, "invalid_part", `a content part must be an object, got ${typeName(part)}`);
    return;
  }
  const type = field(part, "type");
  if (typeof type !== "string" || !allowed.includes(type)) {
    report(
      `${path}.type`,
      "unknown_part_type",
      `unsupported content part type ${quote(type)} here; use ${allowed.join(", ")}`,
    );
    return;
  }
  if (type === "input_file") {
    checkFilePart(part, path, report);
    return;
  }
  if (type === "input_image") {
    const url = field(part, "image_url");
    if (typeof url !== "string" || url === "") {
      report(
        `${path}.image_url`,
        "invalid_part",
        `an input_image part needs a string \`image_url\` (https or data URL), got ${typeName(url)}; images by file_id are not supported`,
      );
    }
    checkDetail(part, path, report);
    return;
  }
  const key = type === "refusal" ? "refusal" : "text";
  const text = field(part, key);
  if (typeof text !== "string") {
    report(
      `${path}.${key}`,
      "invalid_part",
      `a ${type} part needs a string \`${key}\`, got ${typeName(text)}`,
    );
  }
}

function checkFilePart(part: Record<string, unknown>, path: string, report: Report): void {
  let sources = 0;
  for (const key of ["file_data", "file_id", "file_url", "filename"]) {
    const value = field(part, key);
    if (value === undefined || value === null) continue;
    if (typeof value !== "string" || value === "") {
      report(
        `${path}.${key}`,
        "invalid_part",
        `\`${key}\` of an input_file part must be a non-empty string, got ${typeName(value)}`,
      );
    } else if (key !== "filename") {
      sources++;
    }
  }
  if (sources === 0) {
    report(
      path,
      "invalid_part",
      "an input_file part needs the file as `file_data`, `file_id` or `file_url`",
    );
  }
  checkDetail(part, path, report);
}

function checkDetail(part: Record<string, unknown>, path: string, report: Report): void {
  const detail = field(part, "detail");
  if (detail !== undefined && !DETAILS.some((value) => value === detail)) {
    report(
      `${path}.detail`,
      "invalid_part",
      `unknown detail ${quote(detail)}; use auto, low or high, or leave it out`,
    );
  }
}

/** A message's `content` or a tool output's `output`: text, or a non-empty list of `allowed` parts. */
function checkParts(
  value: unknown,
  allowed: readonly string[],
  path: string,
  subject: string,
  report: Report,
): void {
  const empty = { kind: "empty_content_parts", fix: 'send a string ("" for none)' };
  const parts = { path, subject, items: "content parts", kind: "invalid_content", empty };
  textOrList(value, parts, report)?.forEach((part: unknown, partIndex) => {
    checkPart(part, allowed, `${path}[${partIndex}]`, report);
  });
}

/** A call item's `call_id` and `name` (`what` names the item). */
function checkCall(item: Record<string, unknown>, what: string, report: Report): void {
  for (const key of ["call_id", "name"]) {
    const value = field(item, key);
    if (typeof value !== "string" || value === "") {
      report(
        key,
        "invalid_item",
        `${what} needs a non-empty string \`${key}\`, got ${typeName(value)}`,
      );
    }
  }
}

/** A function_call's `arguments`: JSON text, nested no deeper than a provider accepts. */
function checkArguments(args: unknown, report: Report): void {
  if (typeof args !== "string") {
    report(
      "arguments",
      "invalid_arguments",
      `a function_call item needs \`arguments\` as a JSON string, got ${typeName(args)}`,
    );
    return;
  }
  try {
    JSON.parse(args);
  } catch (error) {
    const reason = error instanceof Error ? error.message : "parse error";
    report(
      "arguments",
      "invalid_arguments",
      `\`arguments\` is not valid JSON (${reason}); send a JSON object string, e.g. "{}" for none`,
    );
    return;
  }
  if (jsonTextNestsTooDeep(args))
    report("arguments", "arguments_too_deep", tooDeepMessage("`arguments`"));
}

/** The string field an item must hold, reported with `need` when it holds anything else. */
function checkString(
  item: Record<string, unknown>,
  key: string,
  need: string,
  report: Report,
): void {
  const value = field(item, key);
  if (typeof value !== "string") report(key, "invalid_item", `${need}, got ${typeName(value)}`);
}

function checkItem(
  value: unknown,
  index: number,
  problems: ProblemCollector,
  calls: ToolCallTracker,
): void {
  const report = problems.at(index);
  if (!isRecord(value)) {
    report("", "not_an_object", `each input item must be an object, got ${typeName(value)}`);
    return;
  }
  const type = field(value, "type");
  if (type === undefined ? field(value, "role") !== undefined : type === "message") {
    const role = field(value, "role");
    if (!MESSAGE_ROLES.some((known) => known === role)) {
      report(
        "role",
        "unknown_role",
        `unknown message role ${quote(role)}; use user, assistant, system or developer (tool results are function_call_output items)`,
      );
      return;
    }
    const allowed = role === "assistant" ? ["output_text", "input_text", "refusal"] : INPUT_PARTS;
    checkParts(field(value, "content"), allowed, "content", "message `content`", report);
    return;
  }
  switch (type) {
    case "function_call":
      checkCall(value, "a function_call item", report);
      checkArguments(field(value, "arguments"), report);
      trackCall(value, index, report, calls);
      return;
    case "custom_tool_call":
      checkCall(value, "a custom_tool_call item", report);
      checkString(
        value,
        "input",
        "a custom_tool_call item needs its text `input` as a string",
        report,
      );
      trackCall(value, index, report, calls);
      return;
    case "function_call_output":
    case "custom_tool_call_output": {
      const callId = field(value, "call_id");
      if (typeof callId !== "string" || callId === "") {
        report(
          "call_id",
          "invalid_item",
          `a ${type} item needs a non-empty string \`call_id\`, got ${typeName(callId)}`,
        );
      } else {
        calls.result(callId);
      }
      checkParts(field(value, "output"), INPUT_PARTS, "output", `${type} \`output\``, report);
      return;
    }
    case "reasoning": {
      const summary = field(value, "summary");
      if (summary !== undefined && !Array.isArray(summary)) {
        report(
          "summary",
          "invalid_item",
          `a reasoning item's \`summary\` must be an array, got ${typeName(summary)}`,
        );
      }
      return;
    }
    case "compaction":
      checkString(
        value,
        "encrypted_content",
        "a compaction item needs its string `encrypted_content` (pass it back unchanged)",
        report,
      );
      return;
    case undefined:
      report(
        "type",
        "missing_type",
        `an input item needs a \`type\` (${ITEM_TYPES}), or a \`role\` for a message`,
      );
      return;
    default:
      if (typeof type !== "string" || type === "") {
        report(
          "type",
          "invalid_item",
          `an input item's \`type\` must be a non-empty string (${ITEM_TYPES}, or any other the API takes), got ${typeName(type)}`,
        );
        return;
      }
      if (!isTypeName(type)) {
        report("type", "invalid_item_type", typeNameProblem(type, "the item"));
        return;
      }
      // A type the engine does not know is kept whole and forwarded: the provider judges it. A
      // call's type with a `call_id` pairs it like a function call (`opaquePairing`).
      switch (opaquePairing(value)) {
        case "call":
          trackCall(value, index, report, calls);
          return;
        case "output":
          calls.result(opaqueCallId(value) ?? "");
          return;
        default:
          return;
      }
  }
}

/** The `call_id` of an item of a type the engine does not know, when it has one. */
export function opaqueCallId(item: Record<string, unknown>): string | undefined {
  const id = field(item, "call_id");
  return typeof id === "string" && id !== "" ? id : undefined;
}

/**
 * What an item of a type the engine does not know stands for: with a `call_id`, a type named as the
 * API names calls (`local_shell_call`, `computer_call`) is a call and one named as their outputs
 * (`local_shell_call_output`) answers one; any other (`web_search_call` without an id, a content
 * part's name such as `output_text` used as an item type) carries its text only, never a tool call
 * that other formats would send as the model's own.
 */
export function opaquePairing(item: Record<string, unknown>): "call" | "output" | "carrier" {
  const type = field(item, "type");
  if (typeof type !== "string" || opaqueCallId(item) === undefined) return "carrier";
  if (type.endsWith("_call_output")) return "output";
  if (type.endsWith("_call")) return "call";
  return "carrier";
}

/** Records a call's id; a call_id may come back once its call has its output (see call-ids), not while it waits. */
function trackCall(
  item: Record<string, unknown>,
  index: number,
  report: Report,
  calls: ToolCallTracker,
): void {
  const callId = field(item, "call_id");
  if (typeof callId !== "string" || callId === "") return;
  const { unanswered } = calls.call(callId, index);
  if (unanswered === undefined) return;
  const earlier = `the call of item ${unanswered.at}`;
  report("call_id", "duplicate_tool_call_id", reusedCallMessage(callId, earlier));
}

export function checkItems(items: unknown, problems: ProblemCollector): items is ResponseItem[] {
  if (!Array.isArray(items)) {
    problems.add(
      -1,
      "",
      "not_an_array",
      `input must be an array of Responses input items, got ${typeName(items)}`,
    );
    return false;
  }
  const calls = new ToolCallTracker();
  items.forEach((item: unknown, index) => {
    checkItem(item, index, problems, calls);
  });
  return problems.size === 0;
}

/**
 * Checks untrusted Responses input items and returns a well-formed copy (lone
 * surrogates replaced). Throws `InvalidMessagesError` listing every problem.
 */
export function parseResponses(items: unknown): ResponseItem[] {
  const problems = new ProblemCollector();
  // Copying recurses: anything nested past what a provider accepts is rejected first, as
  // `messages/limits` measures an item wherever it is read again (kept in provider_data).
  if (Array.isArray(items)) {
    items.forEach((item: unknown, index) => {
      if (itemNestsTooDeep(item))
        problems.add(index, "", "too_deep", tooDeepMessage("this item", MAX_ITEM_NESTING));
    });
    problems.throwIfAny();
  }
  const copy = Array.isArray(items) ? wellFormedDeep(items) : items;
  if (!checkItems(copy, problems)) {
    problems.throwIfAny();
    return [];
  }
  return copy;
}
