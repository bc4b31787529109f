/**
 * @module messages/parse-tool-calls
 * Reads the `tool_calls` of an untrusted assistant message: Chat Completions'
 * function calls (`function: { name, arguments }`, JSON arguments; an
 * arguments object is sent as its JSON text) and custom tool calls
 * (`type: "custom"`, `custom: { name, input }`, free text). A call id may come
 * back once its earlier call is answered, not while it waits (`messages/call-ids`),
 * and arguments nested past `MAX_NESTING` are rejected.
 */

import { reusedInListMessage, type ToolCallTracker } from "./call-ids.js";
import {
  field,
  isRecord,
  type ProblemCollector,
  quote,
  type Report,
  toWellFormed,
  typeName,
} from "./input-checks.js";
import { jsonTextNestsTooDeep, tooDeepMessage, valueNestsTooDeep } from "./limits.js";
import type { Role, ToolCall } from "./types.js";

export function parseToolCalls(
  raw: unknown,
  role: Role | undefined,
  index: number,
  problems: ProblemCollector,
  tracker: ToolCallTracker,
): ToolCall[] | undefined {
  const report = problems.at(index);
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    return report(
      "tool_calls",
      "invalid_tool_calls",
      `\`tool_calls\` must be an array of tool calls, got ${typeName(raw)}`,
    );
  }
  if (raw.length === 0) return undefined;
  if (role !== undefined && role !== "assistant") {
    return report(
      "tool_calls",
      "unexpected_tool_calls",
      `only assistant messages can carry \`tool_calls\`, not a ${role} message; set the role to assistant or remove them`,
    );
  }
  const calls: ToolCall[] = [];
  let ok = true;
  for (let callIndex = 0; callIndex < raw.length; callIndex++) {
    const path = `tool_calls[${callIndex}]`;
    const call = parseToolCall(raw[callIndex], index, path, problems, tracker);
    if (call) calls.push(call);
    else ok = false;
  }
  return ok ? calls : undefined;
}

function parseToolCall(
  raw: unknown,
  index: number,
  path: string,
  problems: ProblemCollector,
  tracker: ToolCallTracker,
): ToolCall | undefined {
  const report = problems.at(index);
  if (!isRecord(raw)) {
    return report(
      path,
      "invalid_tool_call",
      `a tool call must be an object { "id", "type": "function", "function": { "name", "arguments" } }, got ${typeName(raw)}`,
    );
  }
  const before = problems.size;
  const rawId = field(raw, "id");
  let id: string | undefined;
  if (typeof rawId !== "string" || rawId === "") {
    report(
      `${path}.id`,
      "invalid_tool_call_id",
      `a tool call needs a non-empty string \`id\`, got ${typeName(rawId)}; its tool message answers it with \`tool_call_id\``,
    );
  } else {
    id = toWellFormed(rawId);
    const { unanswered } = tracker.call(id, index);
    if (unanswered !== undefined) {
      const message = reusedInListMessage(id, unanswered.at, index);
      report(`${path}.id`, "duplicate_tool_call_id", message);
    }
  }

  const type = field(raw, "type");
  if (type === "custom") {
    const custom = parseCustomCall(field(raw, "custom"), `${path}.custom`, report);
    if (problems.size > before || id === undefined || custom === undefined) return undefined;
    return { id, type: "custom", custom };
  }
  if (type !== undefined && type !== null && type !== "function") {
    report(
      `${path}.type`,
      "unsupported_tool_call_type",
      `tool call type ${quote(type)} is not supported; use "function" or "custom"`,
    );
  }

  const fn = field(raw, "function");
  let name: string | undefined;
  let args: string | undefined;
  if (!isRecord(fn)) {
    report(
      `${path}.function`,
      "invalid_tool_call",
      `a tool call needs \`function\` as an object { "name", "arguments" }, got ${typeName(fn)}`,
    );
  } else {
    name = toolName(
      field(fn, "name"),
      `${path}.function.name`,
      "a tool call needs a non-empty string `function.name`",
      report,
    );
    args = parseArguments(field(fn, "arguments"), `${path}.function.arguments`, report);
  }

  if (problems.size > before || id === undefined || name === undefined || args === undefined) {
    return undefined;
  }
  return { id, type: "function", function: { name, arguments: args } };
}

/** A call's tool name: a non-empty string; else reported (`needs` says where it belongs). */
function toolName(raw: unknown, path: string, needs: string, report: Report): string | undefined {
  if (typeof raw === "string" && raw !== "") return toWellFormed(raw);
  return report(path, "invalid_tool_call", `${needs} (the tool's name), got ${typeName(raw)}`);
}

/** A custom tool call's `custom`: its tool's name and its free-form text input. */
function parseCustomCall(
  raw: unknown,
  path: string,
  report: Report,
): { name: string; input: string } | undefined {
  if (!isRecord(raw)) {
    return report(
      path,
      "invalid_tool_call",
      `a custom tool call needs \`custom\` as an object { "name", "input" }, got ${typeName(raw)}`,
    );
  }
  const needs = "a custom tool call needs a non-empty string `custom.name`";
  const name = toolName(field(raw, "name"), `${path}.name`, needs, report);
  const input = field(raw, "input");
  if (typeof input !== "string") {
    report(
      `${path}.input`,
      "invalid_tool_call",
      `a custom tool call needs its text input as a string \`custom.input\`, got ${typeName(input)}`,
    );
  }
  if (name === undefined || typeof input !== "string") return undefined;
  return { name, input: toWellFormed(input) };
}

function parseArguments(raw: unknown, path: string, report: Report): string | undefined {
  if (typeof raw === "string") {
    const text = toWellFormed(raw);
    try {
      JSON.parse(text);
    } catch (error) {
      const reason = error instanceof Error ? error.message : "parse error";
      return report(
        path,
        "invalid_arguments",
        `\`arguments\` is not valid JSON (${reason}); send the arguments as a JSON object string, e.g. "{}" for none`,
      );
    }
    if (jsonTextNestsTooDeep(text)) {
      return report(path, "arguments_too_deep", tooDeepMessage("`arguments`"));
    }
    return text;
  }
  if (isRecord(raw)) {
    if (valueNestsTooDeep(raw)) {
      return report(path, "arguments_too_deep", tooDeepMessage("`arguments`"));
    }
    // Documented repair: an arguments object is sent as its JSON text.
    try {
      return JSON.stringify(raw);
    } catch {
      return report(
        path,
        "invalid_arguments",
        "`arguments` is an object that cannot be written as JSON (a cycle or a bigint); send a JSON string",
      );
    }
  }
  if (raw === undefined || raw === null) {
    return report(
      path,
      "missing_arguments",
      'a tool call needs `function.arguments`; send "{}" for a call without arguments',
    );
  }
  return report(
    path,
    "invalid_arguments",
    `\`arguments\` must be a JSON string (or an object), got ${typeName(raw)}`,
  );
}
