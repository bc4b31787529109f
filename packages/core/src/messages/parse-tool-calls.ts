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
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) {
    problems.add(
      index,
      "tool_calls",
      "invalid_tool_calls",
      `\`tool_calls\` must be an array of tool calls, got ${typeName(raw)}`,
    );
    return undefined;
  }
  if (raw.length === 0) return undefined;
  if (role !== undefined && role !== "assistant") {
    problems.add(
      index,
      "tool_calls",
      "unexpected_tool_calls",
      `only assistant messages can carry \`tool_calls\`, not a ${role} message; set the role to assistant or remove them`,
    );
    return undefined;
  }
  const calls: ToolCall[] = [];
  let ok = true;
  for (let callIndex = 0; callIndex < raw.length; callIndex++) {
    const call = parseToolCall(
      raw[callIndex],
      index,
      `tool_calls[${callIndex}]`,
      problems,
      tracker,
    );
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
  if (!isRecord(raw)) {
    problems.add(
      index,
      path,
      "invalid_tool_call",
      `a tool call must be an object { "id", "type": "function", "function": { "name", "arguments" } }, got ${typeName(raw)}`,
    );
    return undefined;
  }
  const before = problems.size;
  const rawId = field(raw, "id");
  let id: string | undefined;
  if (typeof rawId !== "string" || rawId === "") {
    problems.add(
      index,
      `${path}.id`,
      "invalid_tool_call_id",
      `a tool call needs a non-empty string \`id\`, got ${typeName(rawId)}; its tool message answers it with \`tool_call_id\``,
    );
  } else {
    id = toWellFormed(rawId);
    const { unanswered } = tracker.call(id, index);
    if (unanswered !== undefined) {
      const message = reusedInListMessage(id, unanswered.at, index);
      problems.add(index, `${path}.id`, "duplicate_tool_call_id", message);
    }
  }

  const type = field(raw, "type");
  if (type === "custom") {
    const custom = parseCustomCall(field(raw, "custom"), index, `${path}.custom`, problems);
    if (problems.size > before || id === undefined || custom === undefined) return undefined;
    return { id, type: "custom", custom };
  }
  if (type !== undefined && type !== null && type !== "function") {
    problems.add(
      index,
      `${path}.type`,
      "unsupported_tool_call_type",
      `tool call type ${quote(type)} is not supported; use "function" or "custom"`,
    );
  }

  const fn = field(raw, "function");
  let name: string | undefined;
  let args: string | undefined;
  if (!isRecord(fn)) {
    problems.add(
      index,
      `${path}.function`,
      "invalid_tool_call",
      `a tool call needs \`function\` as an object { "name", "arguments" }, got ${typeName(fn)}`,
    );
  } else {
    const rawName = field(fn, "name");
    if (typeof rawName !== "string" || rawName === "") {
      problems.add(
        index,
        `${path}.function.name`,
        "invalid_tool_call",
        `a tool call needs a non-empty string \`function.name\` (the tool's name), got ${typeName(rawName)}`,
      );
    } else {
      name = toWellFormed(rawName);
    }
    args = parseArguments(field(fn, "arguments"), index, `${path}.function.arguments`, problems);
  }

  if (problems.size > before || id === undefined || name === undefined || args === undefined) {
    return undefined;
  }
  return { id, type: "function", function: { name, arguments: args } };
}

/** A custom tool call's `custom`: its tool's name and its free-form text input. */
function parseCustomCall(
  raw: unknown,
  index: number,
  path: string,
  problems: ProblemCollector,
): { name: string; input: string } | undefined {
  if (!isRecord(raw)) {
    problems.add(
      index,
      path,
      "invalid_tool_call",
      `a custom tool call needs \`custom\` as an object { "name", "input" }, got ${typeName(raw)}`,
    );
    return undefined;
  }
  const name = field(raw, "name");
  const input = field(raw, "input");
  let ok = true;
  if (typeof name !== "string" || name === "") {
    problems.add(
      index,
      `${path}.name`,
      "invalid_tool_call",
      `a custom tool call needs a non-empty string \`custom.name\` (the tool's name), got ${typeName(name)}`,
    );
    ok = false;
  }
  if (typeof input !== "string") {
    problems.add(
      index,
      `${path}.input`,
      "invalid_tool_call",
      `a custom tool call needs its text input as a string \`custom.input\`, got ${typeName(input)}`,
    );
    ok = false;
  }
  if (!ok || typeof name !== "string" || typeof input !== "string") return undefined;
  return { name: toWellFormed(name), input: toWellFormed(input) };
}

function parseArguments(
  raw: unknown,
  index: number,
  path: string,
  problems: ProblemCollector,
): string | undefined {
  if (typeof raw === "string") {
    const text = toWellFormed(raw);
    try {
      JSON.parse(text);
    } catch (error) {
      const reason = error instanceof Error ? error.message : "parse error";
      problems.add(
        index,
        path,
        "invalid_arguments",
        `\`arguments\` is not valid JSON (${reason}); send the arguments as a JSON object string, e.g. "{}" for none`,
      );
      return undefined;
    }
    if (jsonTextNestsTooDeep(text)) {
      problems.add(index, path, "arguments_too_deep", tooDeepMessage("`arguments`"));
      return undefined;
    }
    return text;
  }
  if (isRecord(raw)) {
    if (valueNestsTooDeep(raw)) {
      problems.add(index, path, "arguments_too_deep", tooDeepMessage("`arguments`"));
      return undefined;
    }
    // Documented repair: an arguments object is sent as its JSON text.
    try {
      return JSON.stringify(raw);
    } catch {
      problems.add(
        index,
        path,
        "invalid_arguments",
        "`arguments` is an object that cannot be written as JSON (a cycle or a bigint); send a JSON string",
      );
      return undefined;
    }
  }
  if (raw === undefined || raw === null) {
    problems.add(
      index,
      path,
      "missing_arguments",
      'a tool call needs `function.arguments`; send "{}" for a call without arguments',
    );
    return undefined;
  }
  problems.add(
    index,
    path,
    "invalid_arguments",
    `\`arguments\` must be a JSON string (or an object), got ${typeName(raw)}`,
  );
  return undefined;
}
