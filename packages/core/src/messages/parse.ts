/**
 * @module messages/parse
 * Turns untrusted input (e.g. the JSON body of an HTTP request) into canonical
 * Chat Completions messages, or throws one `InvalidMessagesError` that lists
 * every problem with its message index, path and a fix.
 *
 * Documented repairs (applied silently, never reported as problems):
 * - lone UTF-16 surrogates in any string become U+FFFD;
 * - a tool call without `type` gets `type: "function"`;
 * - `function.arguments` given as an object is stringified to JSON;
 * - `tool_calls: []` is dropped (the API rejects empty arrays);
 * - a missing or null `content` of an assistant message becomes `null`;
 * - `null` in an optional field (`name`, `tool_calls`, `tool_call_id`) means absent;
 * - fields the canonical shape does not have (`refusal`, `audio`, `function_call`,
 *   `reasoning_content`, `tool_call_id` on a non-tool message, extra keys on content
 *   parts, ...) are dropped.
 *
 * Tool calls are Chat Completions' function calls (`function: { name, arguments }`, JSON
 * arguments) and custom tool calls (`type: "custom"`, `custom: { name, input }`, free text).
 *
 * Content parts are Chat Completions': `text`, `image_url`, `file` (`file_data` as a
 * `data:` URL, or `file_id`; `filename`) and `input_audio` (base64 `data`, `format` wav or
 * mp3). Images, files and audio are user input: other roles may not carry them.
 *
 * Tool-call arguments nested more than `MAX_NESTING` (256) levels deep, or cyclic,
 * are rejected (`arguments_too_deep`), and so is `provider_data` holding a block or
 * item nested more than `MAX_ITEM_NESTING` (257): no provider accepts them, and the
 * engine walks arguments recursively. Both are counted as every format's parser
 * counts them (`messages/limits`), so a message any format accepted reads back.
 *
 * `provider_data` (thinking blocks, Responses reasoning and compaction items that
 * `fromAnthropic`/`fromResponses` attach) is kept, so canonical messages survive
 * `compact()` whole; only its known keys are kept and their types are checked.
 *
 * This module reads the message itself (role, name, tool_call_id); its content,
 * tool calls and provider data are read by `messages/parse-content`,
 * `messages/parse-tool-calls` and `messages/parse-provider-data`.
 */

import { ToolCallTracker } from "./call-ids.js";
import {
  field,
  isRecord,
  ProblemCollector,
  quote,
  toWellFormed,
  typeName,
} from "./input-checks.js";
import { parseContent } from "./parse-content.js";
import { parseProviderData } from "./parse-provider-data.js";
import { parseToolCalls } from "./parse-tool-calls.js";
import type { ChatMessage, Role } from "./types.js";

const ROLES: readonly Role[] = ["system", "developer", "user", "assistant", "tool"];
const ROLE_LIST = "system, developer, user, assistant or tool";

function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

/**
 * Parses untrusted input into canonical messages. Throws `InvalidMessagesError`
 * (never anything else) when the input is not a non-empty array of valid
 * Chat Completions messages; the error lists every problem found.
 */
export function parseMessages(input: unknown): ChatMessage[] {
  const problems = new ProblemCollector();
  if (!Array.isArray(input)) {
    problems.add(
      -1,
      "",
      "not_an_array",
      `messages must be an array of message objects, got ${typeName(input)}; send e.g. [{ "role": "user", "content": "hello" }]`,
    );
    problems.throwIfAny();
    return [];
  }
  if (input.length === 0) {
    problems.add(
      -1,
      "",
      "empty",
      "messages is empty; send at least one message, e.g. a user message",
    );
    problems.throwIfAny();
  }
  // A call id may come back once its earlier call is answered (see call-ids); not while it waits.
  const tracker = new ToolCallTracker();
  const messages: ChatMessage[] = [];
  for (let index = 0; index < input.length; index++) {
    const message = parseMessage(input[index], index, problems, tracker);
    if (message) messages.push(message);
  }
  problems.throwIfAny();
  return messages;
}

function parseMessage(
  value: unknown,
  index: number,
  problems: ProblemCollector,
  tracker: ToolCallTracker,
): ChatMessage | undefined {
  if (!isRecord(value)) {
    problems.add(
      index,
      "",
      "not_an_object",
      `each message must be an object with a \`role\`, got ${typeName(value)}`,
    );
    return undefined;
  }
  const before = problems.size;
  const rawRole = field(value, "role");
  let role: Role | undefined;
  if (rawRole === undefined || rawRole === null) {
    problems.add(index, "role", "missing_role", `a message needs a \`role\`; use ${ROLE_LIST}`);
  } else if (!isRole(rawRole)) {
    problems.add(index, "role", "unknown_role", `unknown role ${quote(rawRole)}; use ${ROLE_LIST}`);
  } else {
    role = rawRole;
  }

  const content = parseContent(field(value, "content"), role, problems.at(index));

  const rawName = field(value, "name");
  let name: string | undefined;
  if (typeof rawName === "string") name = toWellFormed(rawName);
  else if (rawName !== undefined && rawName !== null) {
    problems.add(
      index,
      "name",
      "invalid_name",
      `\`name\` must be a string, got ${typeName(rawName)}; remove it or send a string`,
    );
  }

  const toolCalls = parseToolCalls(field(value, "tool_calls"), role, index, problems, tracker);

  let toolCallId: string | undefined;
  if (role === "tool") {
    const rawId = field(value, "tool_call_id");
    if (rawId === undefined || rawId === null) {
      problems.add(
        index,
        "tool_call_id",
        "missing_tool_call_id",
        "a tool message must name the call it answers; add the `tool_call_id` of the assistant tool call",
      );
    } else if (typeof rawId !== "string" || rawId === "") {
      problems.add(
        index,
        "tool_call_id",
        "invalid_tool_call_id",
        `\`tool_call_id\` must be a non-empty string, got ${typeName(rawId)}; use the \`id\` of the assistant tool call`,
      );
    } else {
      toolCallId = toWellFormed(rawId);
      tracker.result(toolCallId);
    }
  }

  const providerData = parseProviderData(field(value, "provider_data"), index, problems);

  if (problems.size > before || role === undefined || content === undefined) return undefined;
  const message: ChatMessage = { role, content };
  if (name !== undefined) message.name = name;
  if (toolCalls !== undefined) message.tool_calls = toolCalls;
  if (toolCallId !== undefined) message.tool_call_id = toolCallId;
  if (providerData !== undefined) message.provider_data = providerData;
  return message;
}
