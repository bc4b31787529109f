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
 */

import { reusedInListMessage, ToolCallTracker } from "./call-ids.js";
import {
  field,
  isRecord,
  ProblemCollector,
  quote,
  toWellFormed,
  typeName,
  wellFormedDeep,
} from "./input-checks.js";
import {
  itemNestsTooDeep,
  jsonTextNestsTooDeep,
  MAX_ITEM_NESTING,
  nestsPastItems,
  tooDeepMessage,
  valueNestsTooDeep,
} from "./limits.js";
import type {
  ChatMessage,
  ContentPart,
  FilePart,
  MessageContent,
  ProviderData,
  Role,
  ToolCall,
} from "./types.js";

const ROLES: readonly Role[] = ["system", "developer", "user", "assistant", "tool"];
const ROLE_LIST = "system, developer, user, assistant or tool";
const DETAILS = ["auto", "low", "high"] as const;
const AUDIO_FORMATS = ["wav", "mp3"] as const;

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

  const content = parseContent(field(value, "content"), role, index, problems);

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

function optionalOf<T>(
  record: Record<string, unknown>,
  key: string,
  check: (value: unknown) => value is T,
  expected: string,
  report: (path: string, message: string) => void,
  path: string,
): T | undefined {
  const value = field(record, key);
  if (value === undefined || value === null) return undefined;
  if (check(value)) return value;
  report(`${path}.${key}`, `\`${path}.${key}\` must be ${expected}, got ${typeName(value)}`);
  return undefined;
}

const isArray = (value: unknown): value is unknown[] => Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === "string";
const isBoolean = (value: unknown): value is boolean => typeof value === "boolean";

/** The provider data `fromAnthropic` / `fromResponses` attach, checked key by key. */
function parseProviderData(
  raw: unknown,
  index: number,
  problems: ProblemCollector,
): ProviderData | undefined {
  if (raw === undefined || raw === null) return undefined;
  const report = (path: string, message: string) =>
    problems.add(
      index,
      path,
      "invalid_provider_data",
      `${message}; send it back as Condense returned it, or leave it out`,
    );
  if (!isRecord(raw)) {
    report("provider_data", `\`provider_data\` must be an object, got ${typeName(raw)}`);
    return undefined;
  }
  // Copying recurses: provider_data > anthropic > blocks > block is as deep as an item may sit, and
  // each item is measured as its format's parser measured it (`messages/limits`).
  const deep = deepProviderItem(raw);
  if (deep !== undefined || nestsPastItems(raw, 3)) {
    report(
      deep ?? "provider_data",
      tooDeepMessage(`\`${deep ?? "provider_data"}\``, MAX_ITEM_NESTING),
    );
    return undefined;
  }
  const data: ProviderData = {};
  const anthropic = field(raw, "anthropic");
  if (isRecord(anthropic)) {
    const path = "provider_data.anthropic";
    const kept: NonNullable<ProviderData["anthropic"]> = {};
    const thinking = optionalOf(anthropic, "thinking", isArray, "an array", report, path);
    const blocks = optionalOf(anthropic, "blocks", isArray, "an array", report, path);
    const isError = optionalOf(anthropic, "is_error", isBoolean, "a boolean", report, path);
    const inMessages = optionalOf(anthropic, "in_messages", isBoolean, "a boolean", report, path);
    if (thinking !== undefined) kept.thinking = wellFormedArray(thinking);
    if (blocks !== undefined) kept.blocks = wellFormedArray(blocks);
    if (isError !== undefined) kept.is_error = isError;
    if (inMessages === true) kept.in_messages = true;
    data.anthropic = kept;
  } else if (anthropic !== undefined && anthropic !== null) {
    report(
      "provider_data.anthropic",
      `\`provider_data.anthropic\` must be an object, got ${typeName(anthropic)}`,
    );
  }
  const responses = field(raw, "responses");
  if (isRecord(responses)) {
    const path = "provider_data.responses";
    const kept: NonNullable<ProviderData["responses"]> = {};
    const items = optionalOf(responses, "items", isArray, "an array", report, path);
    const id = optionalOf(responses, "id", isString, "a string", report, path);
    const status = optionalOf(responses, "status", isString, "a string", report, path);
    if (items !== undefined) kept.items = wellFormedArray(items);
    if (id !== undefined) kept.id = toWellFormed(id);
    if (status !== undefined) kept.status = toWellFormed(status);
    data.responses = kept;
  } else if (responses !== undefined && responses !== null) {
    report(
      "provider_data.responses",
      `\`provider_data.responses\` must be an object, got ${typeName(responses)}`,
    );
  }
  return data.anthropic === undefined && data.responses === undefined ? undefined : data;
}

/** The lists of blocks or items in `provider_data`, by provider: each entry is measured on its own. */
const ITEM_LISTS: Record<string, readonly string[]> = {
  anthropic: ["thinking", "blocks"],
  responses: ["items"],
};

/** The path of the first block, item or other value of `provider_data` nested past what an item may. */
function deepProviderItem(raw: Record<string, unknown>): string | undefined {
  for (const [provider, lists] of Object.entries(ITEM_LISTS)) {
    const data = field(raw, provider);
    if (!isRecord(data)) continue;
    for (const [key, value] of Object.entries(data)) {
      if (lists.includes(key) && Array.isArray(value)) {
        const deep = value.findIndex(itemNestsTooDeep);
        if (deep >= 0) return `provider_data.${provider}.${key}[${deep}]`;
      } else if (itemNestsTooDeep(value)) return `provider_data.${provider}.${key}`;
    }
  }
  return undefined;
}

function wellFormedArray(values: unknown[]): unknown[] {
  return values.map((value) => wellFormedDeep(value));
}

function parseContent(
  raw: unknown,
  role: Role | undefined,
  index: number,
  problems: ProblemCollector,
): MessageContent | undefined {
  if (typeof raw === "string") return toWellFormed(raw);
  if (raw === undefined || raw === null) {
    // Only assistant messages may omit content (a turn that only calls tools).
    if (role === "assistant" || role === undefined) return null;
    problems.add(
      index,
      "content",
      "missing_content",
      `a ${role} message needs \`content\`; send a string ("" for an empty message)`,
    );
    return undefined;
  }
  if (!Array.isArray(raw)) {
    problems.add(
      index,
      "content",
      "invalid_content",
      `\`content\` must be a string, an array of content parts or null, got ${typeName(raw)}`,
    );
    return undefined;
  }
  if (raw.length === 0) {
    problems.add(
      index,
      "content",
      "empty_content_parts",
      'content parts must not be empty; send a string instead ("" for an empty message)',
    );
    return undefined;
  }
  const parts: ContentPart[] = [];
  let ok = true;
  for (let partIndex = 0; partIndex < raw.length; partIndex++) {
    const part = parsePart(raw[partIndex], role, index, `content[${partIndex}]`, problems);
    if (part) parts.push(part);
    else ok = false;
  }
  return ok ? parts : undefined;
}

function parsePart(
  raw: unknown,
  role: Role | undefined,
  index: number,
  path: string,
  problems: ProblemCollector,
): ContentPart | undefined {
  if (!isRecord(raw)) {
    problems.add(
      index,
      path,
      "invalid_part",
      `a content part must be an object like { "type": "text", "text": "..." }, got ${typeName(raw)}`,
    );
    return undefined;
  }
  const type = field(raw, "type");
  if (type === "text") {
    const text = field(raw, "text");
    if (typeof text !== "string") {
      problems.add(
        index,
        `${path}.text`,
        "invalid_part",
        `a text part needs a string \`text\`, got ${typeName(text)}`,
      );
      return undefined;
    }
    return { type: "text", text: toWellFormed(text) };
  }
  if (type === "image_url") return parseImagePart(raw, role, index, path, problems);
  if (type === "file") return parseFilePart(raw, role, index, path, problems);
  if (type === "input_audio") return parseAudioPart(raw, role, index, path, problems);
  const fix =
    type === "input_text" ||
    type === "output_text" ||
    type === "input_image" ||
    type === "input_file"
      ? `\`${type}\` is a Responses API part; in Chat Completions use { "type": "text", "text": "..." }, { "type": "image_url", ... } or { "type": "file", ... }, or send the input with format "responses"`
      : 'use { "type": "text", "text": "..." }, { "type": "image_url", "image_url": { "url": "..." } }, { "type": "file", "file": { "file_data": "data:application/pdf;base64,..." } } or { "type": "input_audio", "input_audio": { "data": "...", "format": "wav" } }';
  problems.add(
    index,
    `${path}.type`,
    "unknown_part_type",
    `unsupported content part type ${quote(type)}; ${fix}`,
  );
  return undefined;
}

function parseImagePart(
  raw: Record<string, unknown>,
  role: Role | undefined,
  index: number,
  path: string,
  problems: ProblemCollector,
): ContentPart | undefined {
  if (role !== undefined && role !== "user") {
    problems.add(
      index,
      path,
      "image_not_allowed",
      `image parts are only allowed in user messages, not in a ${role} message; move the image into a user message`,
    );
    return undefined;
  }
  const image = field(raw, "image_url");
  if (!isRecord(image)) {
    problems.add(
      index,
      `${path}.image_url`,
      "invalid_part",
      `an image part needs \`image_url\` as an object { "url": "..." }, got ${typeName(image)}`,
    );
    return undefined;
  }
  const url = field(image, "url");
  if (typeof url !== "string" || url === "") {
    problems.add(
      index,
      `${path}.image_url.url`,
      "invalid_part",
      `an image part needs a non-empty string \`url\` (https or data URL), got ${typeName(url)}`,
    );
    return undefined;
  }
  const detail = field(image, "detail");
  if (detail === undefined || detail === null) {
    return { type: "image_url", image_url: { url: toWellFormed(url) } };
  }
  const known = DETAILS.find((value) => value === detail);
  if (known === undefined) {
    problems.add(
      index,
      `${path}.image_url.detail`,
      "invalid_part",
      `unknown image detail ${quote(detail)}; use auto, low or high, or leave it out`,
    );
    return undefined;
  }
  return { type: "image_url", image_url: { url: toWellFormed(url), detail: known } };
}

/** Files and audio are user input, like images (Chat Completions takes them in user messages only). */
function userOnly(
  what: string,
  kind: string,
  role: Role | undefined,
  index: number,
  path: string,
  problems: ProblemCollector,
): boolean {
  if (role === undefined || role === "user") return true;
  problems.add(
    index,
    path,
    kind,
    `${what} parts are only allowed in user messages, not in a ${role} message; move it into a user message`,
  );
  return false;
}

/** An optional non-empty string field of a part: the string, `undefined` when absent, `false` when wrong. */
function optionalText(
  record: Record<string, unknown>,
  key: string,
  index: number,
  path: string,
  problems: ProblemCollector,
): string | undefined | false {
  const value = field(record, key);
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string" && value !== "") return toWellFormed(value);
  problems.add(
    index,
    `${path}.${key}`,
    "invalid_part",
    `\`${key}\` must be a non-empty string, got ${typeName(value)}; send it or leave it out`,
  );
  return false;
}

function parseFilePart(
  raw: Record<string, unknown>,
  role: Role | undefined,
  index: number,
  path: string,
  problems: ProblemCollector,
): ContentPart | undefined {
  if (!userOnly("file", "file_not_allowed", role, index, path, problems)) return undefined;
  const file = field(raw, "file");
  if (!isRecord(file)) {
    problems.add(
      index,
      `${path}.file`,
      "invalid_part",
      `a file part needs \`file\` as an object { "file_data": "data:application/pdf;base64,..." } or { "file_id": "..." }, got ${typeName(file)}`,
    );
    return undefined;
  }
  const at = `${path}.file`;
  const data = optionalText(file, "file_data", index, at, problems);
  const id = optionalText(file, "file_id", index, at, problems);
  const name = optionalText(file, "filename", index, at, problems);
  if (data === false || id === false || name === false) return undefined;
  if (data === undefined && id === undefined) {
    problems.add(
      index,
      at,
      "invalid_part",
      "a file part needs the file's bytes as `file_data` (a data: URL such as data:application/pdf;base64,...) or an uploaded file's `file_id`",
    );
    return undefined;
  }
  const kept: FilePart["file"] = {};
  if (data !== undefined) kept.file_data = data;
  if (id !== undefined) kept.file_id = id;
  if (name !== undefined) kept.filename = name;
  return { type: "file", file: kept };
}

function parseAudioPart(
  raw: Record<string, unknown>,
  role: Role | undefined,
  index: number,
  path: string,
  problems: ProblemCollector,
): ContentPart | undefined {
  if (!userOnly("audio", "audio_not_allowed", role, index, path, problems)) return undefined;
  const audio = field(raw, "input_audio");
  if (!isRecord(audio)) {
    problems.add(
      index,
      `${path}.input_audio`,
      "invalid_part",
      `an audio part needs \`input_audio\` as an object { "data": "<base64>", "format": "wav" }, got ${typeName(audio)}`,
    );
    return undefined;
  }
  const at = `${path}.input_audio`;
  const data = field(audio, "data");
  const format = field(audio, "format");
  let ok = true;
  if (typeof data !== "string" || data === "") {
    problems.add(
      index,
      `${at}.data`,
      "invalid_part",
      `an audio part needs its base64 bytes as a non-empty string \`data\`, got ${typeName(data)}`,
    );
    ok = false;
  }
  const known = AUDIO_FORMATS.find((value) => value === format);
  if (known === undefined) {
    problems.add(
      index,
      `${at}.format`,
      "invalid_part",
      `unknown audio format ${quote(format)}; Chat Completions takes wav or mp3 (send other audio as a file part)`,
    );
    ok = false;
  }
  if (!ok || typeof data !== "string" || known === undefined) return undefined;
  return { type: "input_audio", input_audio: { data: toWellFormed(data), format: known } };
}

function parseToolCalls(
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
