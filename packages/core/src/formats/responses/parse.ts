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
  typeName,
  wellFormedDeep,
} from "../../messages/input-checks.js";
import {
  itemNestsTooDeep,
  jsonTextNestsTooDeep,
  MAX_ITEM_NESTING,
  tooDeepMessage,
} from "../../messages/limits.js";
import type { ResponseItem } from "./types.js";

const MESSAGE_ROLES = ["user", "assistant", "system", "developer"] as const;
const ITEM_TYPES =
  "message, function_call, function_call_output, custom_tool_call, custom_tool_call_output, reasoning or compaction";
const DETAILS = ["auto", "low", "high"] as const;

function checkPart(
  part: unknown,
  allowed: readonly string[],
  index: number,
  path: string,
  problems: ProblemCollector,
): void {
  if (!isRecord(part)) {
    problems.add(
      index,
      path,
      "invalid_part",
      `a content part must be an object, got ${typeName(part)}`,
    );
    return;
  }
  const type = field(part, "type");
  if (typeof type !== "string" || !allowed.includes(type)) {
    problems.add(
      index,
      `${path}.type`,
      "unknown_part_type",
      `unsupported content part type ${quote(type)} here; use ${allowed.join(", ")}`,
    );
    return;
  }
  if (type === "input_file") {
    checkFilePart(part, index, path, problems);
    return;
  }
  if (type === "input_image") {
    const url = field(part, "image_url");
    if (typeof url !== "string" || url === "") {
      problems.add(
        index,
        `${path}.image_url`,
        "invalid_part",
        `an input_image part needs a string \`image_url\` (https or data URL), got ${typeName(url)}; images by file_id are not supported`,
      );
    }
    checkDetail(part, index, path, problems);
    return;
  }
  const key = type === "refusal" ? "refusal" : "text";
  if (typeof field(part, key) !== "string") {
    problems.add(
      index,
      `${path}.${key}`,
      "invalid_part",
      `a ${type} part needs a string \`${key}\`, got ${typeName(field(part, key))}`,
    );
  }
}

function checkFilePart(
  part: Record<string, unknown>,
  index: number,
  path: string,
  problems: ProblemCollector,
): void {
  let sources = 0;
  for (const key of ["file_data", "file_id", "file_url", "filename"]) {
    const value = field(part, key);
    if (value === undefined || value === null) continue;
    if (typeof value !== "string" || value === "") {
      problems.add(
        index,
        `${path}.${key}`,
        "invalid_part",
        `\`${key}\` of an input_file part must be a non-empty string, got ${typeName(value)}`,
      );
    } else if (key !== "filename") {
      sources++;
    }
  }
  if (sources === 0) {
    problems.add(
      index,
      path,
      "invalid_part",
      "an input_file part needs the file as `file_data`, `file_id` or `file_url`",
    );
  }
  checkDetail(part, index, path, problems);
}

function checkDetail(
  part: Record<string, unknown>,
  index: number,
  path: string,
  problems: ProblemCollector,
): void {
  const detail = field(part, "detail");
  if (detail !== undefined && !DETAILS.some((value) => value === detail)) {
    problems.add(
      index,
      `${path}.detail`,
      "invalid_part",
      `unknown detail ${quote(detail)}; use auto, low or high, or leave it out`,
    );
  }
}

function checkParts(
  value: unknown,
  allowed: readonly string[],
  index: number,
  path: string,
  what: string,
  problems: ProblemCollector,
): void {
  if (typeof value === "string") return;
  if (!Array.isArray(value)) {
    problems.add(
      index,
      path,
      "invalid_content",
      `${what} must be a string or an array of content parts, got ${typeName(value)}`,
    );
    return;
  }
  if (value.length === 0) {
    problems.add(
      index,
      path,
      "empty_content_parts",
      `${what} must not be an empty array; send a string ("" for none)`,
    );
    return;
  }
  value.forEach((part: unknown, partIndex) => {
    checkPart(part, allowed, index, `${path}[${partIndex}]`, problems);
  });
}

function checkNonEmptyString(
  item: Record<string, unknown>,
  key: string,
  what: string,
  index: number,
  problems: ProblemCollector,
): void {
  const value = field(item, key);
  if (typeof value !== "string" || value === "") {
    problems.add(
      index,
      key,
      "invalid_item",
      `${what} needs a non-empty string \`${key}\`, got ${typeName(value)}`,
    );
  }
}

function checkItem(
  value: unknown,
  index: number,
  problems: ProblemCollector,
  calls: ToolCallTracker,
): void {
  if (!isRecord(value)) {
    problems.add(
      index,
      "",
      "not_an_object",
      `each input item must be an object, got ${typeName(value)}`,
    );
    return;
  }
  const type = field(value, "type");
  if (type === undefined ? field(value, "role") !== undefined : type === "message") {
    const role = field(value, "role");
    if (!MESSAGE_ROLES.some((known) => known === role)) {
      problems.add(
        index,
        "role",
        "unknown_role",
        `unknown message role ${quote(role)}; use user, assistant, system or developer (tool results are function_call_output items)`,
      );
      return;
    }
    const allowed =
      role === "assistant"
        ? ["output_text", "input_text", "refusal"]
        : ["input_text", "output_text", "input_image", "input_file"];
    checkParts(field(value, "content"), allowed, index, "content", "message `content`", problems);
    return;
  }
  switch (type) {
    case "function_call": {
      checkNonEmptyString(value, "call_id", "a function_call item", index, problems);
      checkNonEmptyString(value, "name", "a function_call item", index, problems);
      const args = field(value, "arguments");
      if (typeof args !== "string") {
        problems.add(
          index,
          "arguments",
          "invalid_arguments",
          `a function_call item needs \`arguments\` as a JSON string, got ${typeName(args)}`,
        );
      } else {
        try {
          JSON.parse(args);
          if (jsonTextNestsTooDeep(args))
            problems.add(index, "arguments", "arguments_too_deep", tooDeepMessage("`arguments`"));
        } catch (error) {
          const reason = error instanceof Error ? error.message : "parse error";
          problems.add(
            index,
            "arguments",
            "invalid_arguments",
            `\`arguments\` is not valid JSON (${reason}); send a JSON object string, e.g. "{}" for none`,
          );
        }
      }
      trackCall(value, index, problems, calls);
      return;
    }
    case "function_call_output":
    case "custom_tool_call_output": {
      checkNonEmptyString(value, "call_id", `a ${type} item`, index, problems);
      const callId = field(value, "call_id");
      if (typeof callId === "string" && callId !== "") calls.result(callId);
      checkParts(
        field(value, "output"),
        ["input_text", "output_text", "input_image", "input_file"],
        index,
        "output",
        `${type} \`output\``,
        problems,
      );
      return;
    }
    case "custom_tool_call": {
      checkNonEmptyString(value, "call_id", "a custom_tool_call item", index, problems);
      checkNonEmptyString(value, "name", "a custom_tool_call item", index, problems);
      const input = field(value, "input");
      if (typeof input !== "string") {
        problems.add(
          index,
          "input",
          "invalid_item",
          `a custom_tool_call item needs its text \`input\` as a string, got ${typeName(input)}`,
        );
      }
      trackCall(value, index, problems, calls);
      return;
    }
    case "reasoning": {
      const summary = field(value, "summary");
      if (summary !== undefined && !Array.isArray(summary)) {
        problems.add(
          index,
          "summary",
          "invalid_item",
          `a reasoning item's \`summary\` must be an array, got ${typeName(summary)}`,
        );
      }
      return;
    }
    case "compaction": {
      const content = field(value, "encrypted_content");
      if (typeof content !== "string") {
        problems.add(
          index,
          "encrypted_content",
          "invalid_item",
          `a compaction item needs its string \`encrypted_content\` (pass it back unchanged), got ${typeName(content)}`,
        );
      }
      return;
    }
    case undefined:
      problems.add(
        index,
        "type",
        "missing_type",
        `an input item needs a \`type\` (${ITEM_TYPES}), or a \`role\` for a message`,
      );
      return;
    default:
      if (typeof type !== "string" || type === "") {
        problems.add(
          index,
          "type",
          "invalid_item",
          `an input item's \`type\` must be a non-empty string (${ITEM_TYPES}, or any other the API takes), got ${typeName(type)}`,
        );
        return;
      }
      // A type the engine does not know is kept whole and forwarded: the provider judges it. Its
      // `call_id` pairs it like a function call (`*_output` answers, anything else calls).
      if (opaqueCallId(value) === undefined) return;
      if (type.endsWith("_output")) calls.result(opaqueCallId(value) ?? "");
      else trackCall(value, index, problems, calls);
  }
}

/** The `call_id` of an item of a type the engine does not know, when it has one. */
export function opaqueCallId(item: Record<string, unknown>): string | undefined {
  const id = field(item, "call_id");
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** Records a call's id; a call_id may come back once its call has its output (see call-ids), not while it waits. */
function trackCall(
  item: Record<string, unknown>,
  index: number,
  problems: ProblemCollector,
  calls: ToolCallTracker,
): void {
  const callId = field(item, "call_id");
  if (typeof callId !== "string" || callId === "") return;
  const { unanswered } = calls.call(callId, index);
  if (unanswered === undefined) return;
  const earlier = `the call of item ${unanswered.at}`;
  problems.add(index, "call_id", "duplicate_tool_call_id", reusedCallMessage(callId, earlier));
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
