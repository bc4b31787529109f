/**
 * @module formats/anthropic
 * Conversion between Anthropic Messages (`system` + `messages`) and canonical
 * Chat Completions messages.
 *
 * Mapping:
 * - `system` (string or text blocks) becomes one leading system message;
 *   on the way back every system/developer message joins `system` (one message:
 *   its own form; several: their text blocks concatenated).
 * - A user turn becomes one tool message per `tool_result` block (in order)
 *   followed by one user message with the remaining blocks, if any.
 * - An assistant turn becomes one assistant message: text blocks → content
 *   parts (`null` if there are none), `tool_use` → `tool_calls` (`input` as JSON
 *   text), `thinking`/`redacted_thinking` → `provider_data.anthropic.thinking`.
 * - String content stays string content; block arrays become content-part
 *   arrays. Images: base64 source ↔ `data:` URL, url source ↔ URL.
 * - `is_error` of a tool result → `provider_data.anthropic.is_error`.
 * - When the blocks `toAnthropic` would rebuild from a message differ from the
 *   original ones (cache_control, citations, block order, whitespace-only text,
 *   a tool result without `content`, ...), the original blocks are kept in
 *   `provider_data.anthropic.blocks` and sent back verbatim as long as the
 *   message's content still matches them; once the content was changed they
 *   are stale and the message is rebuilt (thinking and is_error kept).
 *
 * So `toAnthropic(fromAnthropic(x))` deep-equals `x` for a valid `x` whose
 * turns alternate and start with a user turn, except for these documented
 * normalizations: `tool_result` blocks move to the start of their user turn (as
 * Anthropic requires); consecutive same-role turns are merged; lone surrogates
 * become U+FFFD.
 *
 * Tool ids: Anthropic accepts `tool_use` ids of `[a-zA-Z0-9_-]` only, unique
 * across the conversation. `toAnthropic` keeps an id that already is one (its
 * first use); any other (`call_1|fc_2`, an id reused by a later call) becomes
 * the id with every other character replaced by `_`, plus `_` and 8 hex digits
 * of a hash of the id and its occurrence, and its `tool_result` the same (a
 * result answers the nearest earlier call with its id). The same conversation
 * always gets the same ids, distinct calls never share one, and
 * `fromAnthropic(toAnthropic(x))` keeps every id it did not change.
 *
 * `toAnthropic` also: merges consecutive same-role turns (tool results count as
 * user), places `tool_result` blocks first in their user turn, drops
 * whitespace-only text blocks next to other blocks (Anthropic rejects them),
 * prepends the user turn {@link LEADING_USER_TEXT} when the conversation would
 * start with an assistant turn, sends a message with nothing to send (an
 * assistant `content: null` without calls) as `""` for `validateMessages` to
 * report, drops `name` and image `detail` (Anthropic has
 * no place for them), and wraps tool-call arguments that are not a JSON object
 * as `{ "arguments": "<text>" }` (`input` must be an object).
 */

import {
  field,
  isRecord,
  MAX_NESTING,
  ProblemCollector,
  quote,
  tooDeepMessage,
  typeName,
  valueNestsTooDeep,
  wellFormedDeep,
} from "../../messages/input-checks.js";
import type { ChatMessage, ContentPart, MessageContent, ToolCall } from "../../messages/types.js";
import { jsonEqual } from "../json-equal.js";

export interface AnthropicCacheControl {
  type: "ephemeral";
  ttl?: "5m" | "1h";
}

export interface AnthropicTextBlock {
  type: "text";
  text: string;
  cache_control?: AnthropicCacheControl | null;
  citations?: unknown[] | null;
}

export type AnthropicImageSource =
  | { type: "base64"; media_type: string; data: string }
  | { type: "url"; url: string };

export interface AnthropicImageBlock {
  type: "image";
  source: AnthropicImageSource;
  cache_control?: AnthropicCacheControl | null;
}

export interface AnthropicToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
  cache_control?: AnthropicCacheControl | null;
}

export interface AnthropicToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: string | Array<AnthropicTextBlock | AnthropicImageBlock>;
  is_error?: boolean;
  cache_control?: AnthropicCacheControl | null;
}

export interface AnthropicThinkingBlock {
  type: "thinking";
  thinking: string;
  signature: string;
}

export interface AnthropicRedactedThinkingBlock {
  type: "redacted_thinking";
  data: string;
}

export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

export interface AnthropicMessage {
  role: "user" | "assistant";
  content: string | AnthropicContentBlock[];
}

export interface AnthropicRequest {
  system?: string | AnthropicTextBlock[];
  messages: AnthropicMessage[];
}

/** Text of the user turn `toAnthropic` prepends when the conversation would start with an assistant turn. */
export const LEADING_USER_TEXT = "[conversation continues]";

const USER_BLOCKS = ["text", "image", "tool_result"] as const;
const ASSISTANT_BLOCKS = ["text", "tool_use", "thinking", "redacted_thinking"] as const;

// ---------------------------------------------------------------------------
// Shape checks of untrusted Anthropic input

type Role = "user" | "assistant";

function checkCacheControl(
  block: Record<string, unknown>,
  index: number,
  path: string,
  problems: ProblemCollector,
): void {
  const value = field(block, "cache_control");
  if (value !== undefined && value !== null && !isRecord(value)) {
    problems.add(
      index,
      `${path}.cache_control`,
      "invalid_block",
      `\`cache_control\` must be an object like { "type": "ephemeral" }, got ${typeName(value)}`,
    );
  }
}

function checkString(
  block: Record<string, unknown>,
  key: string,
  what: string,
  index: number,
  path: string,
  problems: ProblemCollector,
  nonEmpty = false,
): boolean {
  const value = field(block, key);
  if (typeof value === "string" && (!nonEmpty || value !== "")) return true;
  problems.add(
    index,
    `${path}.${key}`,
    "invalid_block",
    `${what} needs a ${nonEmpty ? "non-empty " : ""}string \`${key}\`, got ${typeName(value)}`,
  );
  return false;
}

function checkTextBlock(
  block: Record<string, unknown>,
  index: number,
  path: string,
  problems: ProblemCollector,
): void {
  checkString(block, "text", "a text block", index, path, problems);
  checkCacheControl(block, index, path, problems);
  const citations = field(block, "citations");
  if (citations !== undefined && citations !== null && !Array.isArray(citations)) {
    problems.add(
      index,
      `${path}.citations`,
      "invalid_block",
      `\`citations\` must be an array, got ${typeName(citations)}`,
    );
  }
}

function checkImageBlock(
  block: Record<string, unknown>,
  index: number,
  path: string,
  problems: ProblemCollector,
): void {
  checkCacheControl(block, index, path, problems);
  const source = field(block, "source");
  if (!isRecord(source)) {
    problems.add(
      index,
      `${path}.source`,
      "invalid_block",
      `an image block needs \`source\` as an object, got ${typeName(source)}`,
    );
    return;
  }
  const type = field(source, "type");
  if (type === "base64") {
    checkString(
      source,
      "media_type",
      "a base64 image source",
      index,
      `${path}.source`,
      problems,
      true,
    );
    checkString(source, "data", "a base64 image source", index, `${path}.source`, problems);
  } else if (type === "url") {
    checkString(source, "url", "a url image source", index, `${path}.source`, problems, true);
  } else {
    problems.add(
      index,
      `${path}.source.type`,
      "invalid_block",
      `unsupported image source type ${quote(type)}; use "base64" (with media_type and data) or "url"`,
    );
  }
}

function checkToolResultContent(
  value: unknown,
  index: number,
  path: string,
  problems: ProblemCollector,
): void {
  if (value === undefined || typeof value === "string") return;
  if (!Array.isArray(value)) {
    problems.add(
      index,
      path,
      "invalid_block",
      `tool_result \`content\` must be a string or an array of text/image blocks, got ${typeName(value)}`,
    );
    return;
  }
  value.forEach((item: unknown, itemIndex) => {
    const itemPath = `${path}[${itemIndex}]`;
    if (!isRecord(item)) {
      problems.add(
        index,
        itemPath,
        "invalid_block",
        `a block must be an object, got ${typeName(item)}`,
      );
      return;
    }
    const type = field(item, "type");
    if (type === "text") checkTextBlock(item, index, itemPath, problems);
    else if (type === "image") checkImageBlock(item, index, itemPath, problems);
    else {
      problems.add(
        index,
        `${itemPath}.type`,
        "unknown_block_type",
        `unsupported block type ${quote(type)} inside a tool_result; use text or image blocks`,
      );
    }
  });
}

function checkBlock(
  block: unknown,
  role: Role,
  index: number,
  path: string,
  problems: ProblemCollector,
): void {
  if (!isRecord(block)) {
    problems.add(
      index,
      path,
      "invalid_block",
      `a content block must be an object with a \`type\`, got ${typeName(block)}`,
    );
    return;
  }
  const type = field(block, "type");
  const allowed: readonly string[] = role === "user" ? USER_BLOCKS : ASSISTANT_BLOCKS;
  if (typeof type !== "string" || !allowed.includes(type)) {
    const other: readonly string[] = role === "user" ? ASSISTANT_BLOCKS : USER_BLOCKS;
    const hint =
      typeof type === "string" && other.includes(type)
        ? `\`${type}\` blocks belong in ${role === "user" ? "assistant" : "user"} turns; move it there`
        : `supported ${role} blocks are ${allowed.join(", ")}`;
    problems.add(
      index,
      `${path}.type`,
      "unknown_block_type",
      `unsupported block type ${quote(type)} in a ${role} turn; ${hint}`,
    );
    return;
  }
  switch (type) {
    case "text":
      checkTextBlock(block, index, path, problems);
      return;
    case "image":
      checkImageBlock(block, index, path, problems);
      return;
    case "tool_use": {
      checkString(block, "id", "a tool_use block", index, path, problems, true);
      checkString(block, "name", "a tool_use block", index, path, problems, true);
      const input = field(block, "input");
      if (!isRecord(input)) {
        problems.add(
          index,
          `${path}.input`,
          "invalid_block",
          `a tool_use block needs \`input\` as a JSON object, got ${typeName(input)}`,
        );
      }
      checkCacheControl(block, index, path, problems);
      return;
    }
    case "tool_result": {
      checkString(block, "tool_use_id", "a tool_result block", index, path, problems, true);
      checkToolResultContent(field(block, "content"), index, `${path}.content`, problems);
      const isError = field(block, "is_error");
      if (isError !== undefined && typeof isError !== "boolean") {
        problems.add(
          index,
          `${path}.is_error`,
          "invalid_block",
          `\`is_error\` must be a boolean, got ${typeName(isError)}`,
        );
      }
      checkCacheControl(block, index, path, problems);
      return;
    }
    case "thinking":
      checkString(block, "thinking", "a thinking block", index, path, problems);
      checkString(block, "signature", "a thinking block", index, path, problems);
      return;
    default:
      checkString(block, "data", "a redacted_thinking block", index, path, problems);
  }
}

function checkMessage(
  value: unknown,
  index: number,
  problems: ProblemCollector,
  toolUseOwners: Map<string, number>,
): void {
  if (!isRecord(value)) {
    problems.add(
      index,
      "",
      "not_an_object",
      `each message must be an object { "role", "content" }, got ${typeName(value)}`,
    );
    return;
  }
  const role = field(value, "role");
  if (role !== "user" && role !== "assistant") {
    problems.add(
      index,
      "role",
      "unknown_role",
      `Anthropic messages have role user or assistant, got ${quote(role)}; put system text in the top-level \`system\``,
    );
    return;
  }
  const content = field(value, "content");
  if (typeof content === "string") return;
  if (!Array.isArray(content)) {
    problems.add(
      index,
      "content",
      "invalid_content",
      `\`content\` must be a string or an array of content blocks, got ${typeName(content)}`,
    );
    return;
  }
  if (content.length === 0) {
    problems.add(
      index,
      "content",
      "empty_content",
      "`content` must not be an empty array; send a string or at least one block",
    );
    return;
  }
  content.forEach((block: unknown, blockIndex) => {
    const path = `content[${blockIndex}]`;
    checkBlock(block, role, index, path, problems);
    if (
      role === "assistant" &&
      isRecord(block) &&
      block.type === "tool_use" &&
      typeof block.id === "string"
    ) {
      const owner = toolUseOwners.get(block.id);
      if (owner !== undefined) {
        problems.add(
          index,
          `${path}.id`,
          "duplicate_tool_call_id",
          `tool_use id ${quote(block.id)} is already used by message ${owner}; give every tool_use a unique id`,
        );
      } else {
        toolUseOwners.set(block.id, index);
      }
    }
  });
}

function checkSystem(system: unknown, problems: ProblemCollector): void {
  if (system === undefined || system === null || typeof system === "string") return;
  if (!Array.isArray(system)) {
    problems.add(
      -1,
      "system",
      "invalid_system",
      `\`system\` must be a string or an array of text blocks, got ${typeName(system)}`,
    );
    return;
  }
  system.forEach((block: unknown, blockIndex) => {
    const path = `system[${blockIndex}]`;
    if (!isRecord(block) || field(block, "type") !== "text") {
      problems.add(
        -1,
        path,
        "invalid_system",
        `\`system\` blocks must be text blocks { "type": "text", "text": "..." }, got ${isRecord(block) ? quote(field(block, "type")) : typeName(block)}`,
      );
      return;
    }
    checkTextBlock(block, -1, path, problems);
  });
}

/**
 * Checks an untrusted Anthropic request shape and returns a well-formed copy
 * (lone surrogates replaced). Throws `InvalidMessagesError` listing every problem.
 */
export function parseAnthropic(input: { system?: unknown; messages: unknown }): AnthropicRequest {
  const problems = new ProblemCollector();
  if (!isRecord(input)) {
    problems.add(
      -1,
      "",
      "not_an_object",
      `expected an Anthropic request { system, messages }, got ${typeName(input)}`,
    );
    problems.throwIfAny();
  }
  const messages = input.messages;
  if (!Array.isArray(messages)) {
    problems.add(
      -1,
      "",
      "not_an_array",
      `messages must be an array of Anthropic messages, got ${typeName(messages)}`,
    );
    problems.throwIfAny();
    return { messages: [] };
  }
  if (messages.length === 0) {
    problems.add(-1, "", "empty", "messages is empty; send at least one user message");
  }
  // Copying recurses: anything nested past what a provider accepts is rejected first (message >
  // content > block > input leaves MAX_NESTING levels to a tool_use input).
  messages.forEach((message: unknown, index) => {
    if (valueNestsTooDeep(message, MAX_NESTING + 3))
      problems.add(index, "", "too_deep", tooDeepMessage("this message"));
  });
  if (valueNestsTooDeep(input.system, MAX_NESTING))
    problems.add(-1, "system", "too_deep", tooDeepMessage("`system`"));
  problems.throwIfAny();
  const copy = wellFormedDeep(messages) as unknown[];
  const system = wellFormedDeep(input.system);
  checkSystem(system, problems);
  const toolUseOwners = new Map<string, number>();
  copy.forEach((message, index) => {
    checkMessage(message, index, problems, toolUseOwners);
  });
  problems.throwIfAny();
  const request: AnthropicRequest = { messages: copy as AnthropicMessage[] };
  if (system !== undefined && system !== null)
    request.system = system as string | AnthropicTextBlock[];
  return request;
}

// ---------------------------------------------------------------------------
// Anthropic → canonical

const dataUrlPattern = /^data:([^;,]+);base64,/;

function imageToPart(block: AnthropicImageBlock): ContentPart {
  const url =
    block.source.type === "base64"
      ? `data:${block.source.media_type};base64,${block.source.data}`
      : block.source.url;
  return { type: "image_url", image_url: { url } };
}

function blockToPart(block: AnthropicTextBlock | AnthropicImageBlock): ContentPart {
  return block.type === "text" ? { type: "text", text: block.text } : imageToPart(block);
}

function toolResultContent(block: AnthropicToolResultBlock): MessageContent {
  const content = block.content;
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map(blockToPart);
}

function callFromToolUse(block: AnthropicToolUseBlock): ToolCall {
  return {
    id: block.id,
    type: "function",
    function: { name: block.name, arguments: JSON.stringify(block.input) },
  };
}

function withAnthropicData(
  message: ChatMessage,
  data: NonNullable<NonNullable<ChatMessage["provider_data"]>["anthropic"]>,
): ChatMessage {
  if (Object.keys(data).length > 0) message.provider_data = { anthropic: data };
  return message;
}

/** The canonical messages one Anthropic turn stands for (without provider data). */
function turnToCanonical(turn: AnthropicMessage): ChatMessage[] {
  if (typeof turn.content === "string") return [{ role: turn.role, content: turn.content }];
  if (turn.role === "assistant") {
    const parts: ContentPart[] = [];
    const calls: ToolCall[] = [];
    const thinking: unknown[] = [];
    for (const block of turn.content) {
      if (block.type === "text") parts.push(blockToPart(block));
      else if (block.type === "tool_use") calls.push(callFromToolUse(block));
      else if (block.type === "thinking" || block.type === "redacted_thinking")
        thinking.push(block);
    }
    const message: ChatMessage = { role: "assistant", content: parts.length > 0 ? parts : null };
    if (calls.length > 0) message.tool_calls = calls;
    return [withAnthropicData(message, thinking.length > 0 ? { thinking } : {})];
  }
  const messages: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  for (const block of turn.content) {
    if (block.type === "tool_result") {
      const tool: ChatMessage = {
        role: "tool",
        content: toolResultContent(block),
        tool_call_id: block.tool_use_id,
      };
      messages.push(
        withAnthropicData(tool, block.is_error === undefined ? {} : { is_error: block.is_error }),
      );
    } else if (block.type === "text" || block.type === "image") {
      parts.push(blockToPart(block));
    }
  }
  if (parts.length > 0) messages.push({ role: "user", content: parts });
  return messages;
}

/** The original blocks of each canonical message of one turn, for exact round-trips. */
function turnBlocksPerMessage(turn: AnthropicMessage): Array<string | AnthropicContentBlock[]> {
  if (typeof turn.content === "string" || turn.role === "assistant") return [turn.content];
  const results = turn.content.filter((block) => block.type === "tool_result");
  const others = turn.content.filter((block) => block.type !== "tool_result");
  const perMessage: Array<string | AnthropicContentBlock[]> = results.map((block) => [block]);
  if (others.length > 0) perMessage.push(others);
  return perMessage;
}

function keepBlocksIfNeeded(
  message: ChatMessage,
  original: string | AnthropicContentBlock[],
): void {
  if (jsonEqual(messageContent(message), original)) return;
  const anthropic = {
    ...message.provider_data?.anthropic,
    blocks: typeof original === "string" ? [original] : original,
  };
  message.provider_data = { ...message.provider_data, anthropic };
}

function systemToCanonical(system: string | AnthropicTextBlock[]): ChatMessage {
  if (typeof system === "string") return { role: "system", content: system };
  const message: ChatMessage = { role: "system", content: system.map(blockToPart) };
  if (!jsonEqual(systemContent(message), system)) {
    message.provider_data = { anthropic: { blocks: system } };
  }
  return message;
}

/**
 * Converts an Anthropic request (`system` + `messages`) to canonical messages.
 * The input is untrusted: it is shape-checked and `InvalidMessagesError` lists
 * every problem.
 */
export function fromAnthropic(input: {
  system?: unknown;
  messages: readonly unknown[];
}): ChatMessage[] {
  const request = parseAnthropic(input);
  const out: ChatMessage[] = [];
  if (request.system !== undefined) out.push(systemToCanonical(request.system));
  for (const turn of request.messages) {
    const messages = turnToCanonical(turn);
    const originals = turnBlocksPerMessage(turn);
    messages.forEach((message, index) => {
      const original = originals[index];
      if (original !== undefined) keepBlocksIfNeeded(message, original);
      out.push(message);
    });
  }
  return out;
}

// ---------------------------------------------------------------------------
// canonical → Anthropic

function partToBlock(part: ContentPart): AnthropicTextBlock | AnthropicImageBlock {
  if (part.type === "text") return { type: "text", text: part.text };
  const url = part.image_url.url;
  const match = dataUrlPattern.exec(url);
  if (match?.[1] !== undefined) {
    return {
      type: "image",
      source: { type: "base64", media_type: match[1], data: url.slice(match[0].length) },
    };
  }
  return { type: "image", source: { type: "url", url } };
}

function isBlank(block: AnthropicContentBlock): boolean {
  return block.type === "text" && block.text.trim() === "";
}

/** Whitespace-only text blocks are dropped when other blocks remain: Anthropic rejects them. */
function dropBlankText(blocks: AnthropicContentBlock[]): AnthropicContentBlock[] {
  const kept = blocks.filter((block) => !isBlank(block));
  return kept.length > 0 ? kept : blocks;
}

function contentBlocks(content: MessageContent): AnthropicContentBlock[] {
  if (content === null) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map(partToBlock);
}

function toolUseFromCall(call: ToolCall): AnthropicToolUseBlock {
  let input: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(call.function.arguments);
    input = isRecord(parsed) ? parsed : { arguments: call.function.arguments };
  } catch {
    input = { arguments: call.function.arguments };
  }
  return { type: "tool_use", id: call.id, name: call.function.name, input };
}

function thinkingBlocks(message: ChatMessage): AnthropicContentBlock[] {
  const thinking = message.provider_data?.anthropic?.thinking;
  if (!Array.isArray(thinking)) return [];
  return thinking.filter(
    (block): block is AnthropicThinkingBlock | AnthropicRedactedThinkingBlock =>
      isRecord(block) && (block.type === "thinking" || block.type === "redacted_thinking"),
  );
}

/** The content `toAnthropic` builds for one message from its canonical fields (ignoring stored blocks). */
function messageContent(message: ChatMessage): string | AnthropicContentBlock[] {
  if (message.role === "tool") {
    const content = message.content;
    const block: AnthropicToolResultBlock = {
      type: "tool_result",
      tool_use_id: message.tool_call_id ?? "",
      content:
        content === null ? "" : typeof content === "string" ? content : content.map(partToBlock),
    };
    const isError = message.provider_data?.anthropic?.is_error;
    if (typeof isError === "boolean") block.is_error = isError;
    return [block];
  }
  if (message.role === "assistant") {
    const thinking = thinkingBlocks(message);
    const calls = (message.tool_calls ?? []).map(toolUseFromCall);
    if (typeof message.content === "string" && thinking.length === 0 && calls.length === 0) {
      return message.content;
    }
    const text = contentBlocks(message.content);
    return nonEmpty(dropBlankText([...thinking, ...text, ...calls]));
  }
  if (typeof message.content === "string") return message.content;
  return nonEmpty(dropBlankText(contentBlocks(message.content)));
}

/** No blocks at all becomes "" (Anthropic rejects both; "" reads back, and validate reports it). */
function nonEmpty(blocks: AnthropicContentBlock[]): string | AnthropicContentBlock[] {
  return blocks.length === 0 ? "" : blocks;
}

function systemContent(message: ChatMessage): string | AnthropicTextBlock[] {
  const content = message.content;
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) =>
    part.type === "text"
      ? { type: "text", text: part.text }
      : { type: "text", text: part.image_url.url },
  );
}

/** Stored blocks, if they are still what the message's canonical fields say; else undefined. */
function storedBlocks(message: ChatMessage): string | AnthropicContentBlock[] | undefined {
  const blocks = message.provider_data?.anthropic?.blocks;
  if (!Array.isArray(blocks) || blocks.length === 0) return undefined;
  const stored: string | unknown[] =
    blocks.length === 1 && typeof blocks[0] === "string" ? blocks[0] : blocks;
  const problems = new ProblemCollector();
  if (message.role === "system" || message.role === "developer") {
    checkSystem(stored, problems);
    if (problems.size > 0) return undefined;
    const current = systemToCanonical(stored as string | AnthropicTextBlock[]);
    return jsonEqual(current.content, message.content)
      ? (stored as AnthropicTextBlock[])
      : undefined;
  }
  const role: Role = message.role === "assistant" ? "assistant" : "user";
  const turn = { role, content: stored };
  checkMessage(turn, 0, problems, new Map());
  if (problems.size > 0) return undefined;
  const projected = turnToCanonical(turn as AnthropicMessage);
  const only = projected[0];
  if (projected.length !== 1 || only === undefined || only.role !== message.role) return undefined;
  const same =
    jsonEqual(only.content, message.content) &&
    jsonEqual(only.tool_calls ?? [], message.tool_calls ?? []) &&
    only.tool_call_id === message.tool_call_id;
  return same ? (stored as string | AnthropicContentBlock[]) : undefined;
}

// ---------------------------------------------------------------------------
// Tool ids Anthropic accepts

const ANTHROPIC_TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/** Whether Anthropic accepts `id` as a tool_use id. */
export function isAnthropicToolId(id: string): boolean {
  return ANTHROPIC_TOOL_ID.test(id);
}

/**
 * FNV-1a (32 bits) of `text`, as 8 hex digits. Written by hand: the only hash the runtimes share
 * (WebCrypto) is asynchronous, and this suffix needs no more than a short, stable spread; the
 * caller guarantees uniqueness.
 */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** An Anthropic id for occurrence `n` (from 1) of call id `id`, not yet in `used`. */
function mappedToolId(id: string, n: number, used: ReadonlySet<string>): string {
  if (n === 1 && isAnthropicToolId(id) && !used.has(id)) return id;
  const readable = id.replace(/[^a-zA-Z0-9_-]+/g, "_").slice(0, 64) || "toolu";
  const base = `${readable}_${fnv1a(n === 1 ? id : `${id}#${n}`)}`;
  let candidate = base;
  for (let bump = 2; used.has(candidate); bump++) candidate = `${base}_${bump}`;
  return candidate;
}

/**
 * The Anthropic tool ids of each message, by canonical index: an assistant message's calls in
 * order, or the call a tool message answers. See the module comment for the rules.
 */
function anthropicToolIds(messages: readonly ChatMessage[]): Map<number, string[]> {
  const ids = new Map<number, string[]>();
  const used = new Set<string>();
  const occurrences = new Map<string, number>();
  // Per canonical id: the mapped ids of the latest calls with it that still await a result, and
  // the latest one (a second result of a call gets its id too, for validate to report).
  const awaiting = new Map<string, string[]>();
  const latest = new Map<string, string>();
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (id === undefined) return;
      const mapped = awaiting.get(id)?.shift() ?? latest.get(id) ?? mappedToolId(id, 1, new Set());
      ids.set(index, [mapped]);
      return;
    }
    const calls = message.role === "assistant" ? (message.tool_calls ?? []) : [];
    if (calls.length === 0) return;
    const mine = new Map<string, string[]>();
    const mapped = calls.map((call) => {
      const n = (occurrences.get(call.id) ?? 0) + 1;
      occurrences.set(call.id, n);
      const id = mappedToolId(call.id, n, used);
      used.add(id);
      mine.set(call.id, [...(mine.get(call.id) ?? []), id]);
      latest.set(call.id, id);
      return id;
    });
    for (const [id, list] of mine) awaiting.set(id, list);
    ids.set(index, mapped);
  });
  return ids;
}

/** `content` with its tool_use/tool_result ids replaced by `ids` (a copy, only if any changed). */
function withToolIds(
  content: string | AnthropicContentBlock[],
  ids: readonly string[] | undefined,
): string | AnthropicContentBlock[] {
  if (ids === undefined || typeof content === "string") return content;
  let next = 0;
  let changed = false;
  const blocks = content.map((block): AnthropicContentBlock => {
    if (block.type === "tool_use") {
      const id = ids[next++] ?? block.id;
      if (id === block.id) return block;
      changed = true;
      return { ...block, id };
    }
    if (block.type === "tool_result") {
      const id = ids[0] ?? block.tool_use_id;
      if (id === block.tool_use_id) return block;
      changed = true;
      return { ...block, tool_use_id: id };
    }
    return block;
  });
  return changed ? blocks : content;
}

/** One turn of the plan; `sources[i]` is the canonical index block `i` came from (-1: prepended). */
export interface PlannedTurn {
  role: Role;
  content: string | AnthropicContentBlock[];
  sources: number[];
}

/** What `toAnthropic` produces, with the canonical source index of every piece. */
export interface AnthropicPlan {
  system?: string | AnthropicTextBlock[];
  systemSources: number[];
  turns: PlannedTurn[];
  /** True when a user turn was prepended because the conversation started with an assistant turn. */
  prependedUserTurn: boolean;
}

/** A fresh block array (stored blocks must never be modified in place). */
function asBlocks(content: string | AnthropicContentBlock[]): AnthropicContentBlock[] {
  return typeof content === "string" ? [{ type: "text", text: content }] : [...content];
}

/**
 * @internal The conversion behind `toAnthropic`, also used by
 * `validateMessages(…, "anthropic")` to map problems back to message indices.
 */
export function planAnthropic(messages: readonly ChatMessage[]): AnthropicPlan {
  const systems: Array<{ content: string | AnthropicTextBlock[]; source: number }> = [];
  const turns: PlannedTurn[] = [];
  const leadingResults: number[] = []; // per turn: how many tool_result blocks open it
  const toolIds = anthropicToolIds(messages);
  messages.forEach((message, index) => {
    if (message.role === "system" || message.role === "developer") {
      const stored = storedBlocks(message) as string | AnthropicTextBlock[] | undefined;
      const content = stored ?? systemContent(message);
      systems.push({
        content: typeof content === "string" ? content : [...content],
        source: index,
      });
      return;
    }
    const role: Role = message.role === "assistant" ? "assistant" : "user";
    const found = withToolIds(storedBlocks(message) ?? messageContent(message), toolIds.get(index));
    // Copies: stored blocks must never be modified, and turns are extended in place below.
    const content = typeof found === "string" ? found : [...found];
    const added = typeof content === "string" ? 1 : content.length;
    const last = turns.at(-1);
    if (last === undefined || last.role !== role) {
      turns.push({ role, content, sources: Array.from({ length: added }, () => index) });
      leadingResults.push(message.role === "tool" ? added : 0);
      return;
    }
    if (typeof last.content === "string") last.content = asBlocks(last.content);
    const blocks = last.content;
    const newBlocks = asBlocks(content);
    const newSources = newBlocks.map(() => index);
    if (message.role === "tool") {
      // Tool results go after the turn's other tool results and before its other blocks.
      const at = leadingResults[turns.length - 1] ?? 0;
      blocks.splice(at, 0, ...newBlocks);
      last.sources.splice(at, 0, ...newSources);
      leadingResults[turns.length - 1] = at + newBlocks.length;
    } else {
      blocks.push(...newBlocks);
      last.sources.push(...newSources);
    }
  });
  let prependedUserTurn = false;
  if (turns[0]?.role === "assistant") {
    turns.unshift({ role: "user", content: LEADING_USER_TEXT, sources: [-1] });
    prependedUserTurn = true;
  }
  const plan: AnthropicPlan = {
    systemSources: systems.map((entry) => entry.source),
    turns,
    prependedUserTurn,
  };
  const first = systems[0];
  if (systems.length === 1 && first !== undefined) plan.system = first.content;
  else if (systems.length > 1) {
    plan.system = systems.flatMap((entry) =>
      typeof entry.content === "string"
        ? [{ type: "text" as const, text: entry.content }]
        : entry.content,
    );
  }
  return plan;
}

/**
 * Converts canonical messages to an Anthropic request: system/developer
 * messages → `system`, the rest → alternating user/assistant turns.
 */
export function toAnthropic(messages: readonly ChatMessage[]): AnthropicRequest {
  const plan = planAnthropic(messages);
  const request: AnthropicRequest = {
    messages: plan.turns.map((turn) => ({ role: turn.role, content: turn.content })),
  };
  if (plan.system !== undefined) request.system = plan.system;
  return request;
}
