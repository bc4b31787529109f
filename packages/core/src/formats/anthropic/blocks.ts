/**
 * @module formats/anthropic/blocks
 * One canonical message and its Anthropic content blocks, both ways: the
 * messages one Anthropic turn stands for, the blocks `toAnthropic` builds for
 * one message, and the original blocks kept in `provider_data.anthropic.blocks`
 * when rebuilding would not give them back (see `formats/anthropic/convert`
 * for the mapping).
 */

import { isRecord, ProblemCollector } from "../../messages/input-checks.js";
import type { ChatMessage, ContentPart, MessageContent, ToolCall } from "../../messages/types.js";
import { jsonEqual } from "../json-equal.js";
import { checkMessage, checkSystem } from "./parse.js";
import type {
  AnthropicContentBlock,
  AnthropicImageBlock,
  AnthropicMessage,
  AnthropicRedactedThinkingBlock,
  AnthropicRole,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
} from "./types.js";

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
export function turnToCanonical(turn: AnthropicMessage): ChatMessage[] {
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
export function turnBlocksPerMessage(
  turn: AnthropicMessage,
): Array<string | AnthropicContentBlock[]> {
  if (typeof turn.content === "string" || turn.role === "assistant") return [turn.content];
  const results = turn.content.filter((block) => block.type === "tool_result");
  const others = turn.content.filter((block) => block.type !== "tool_result");
  const perMessage: Array<string | AnthropicContentBlock[]> = results.map((block) => [block]);
  if (others.length > 0) perMessage.push(others);
  return perMessage;
}

export function keepBlocksIfNeeded(
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

export function systemToCanonical(system: string | AnthropicTextBlock[]): ChatMessage {
  if (typeof system === "string") return { role: "system", content: system };
  const message: ChatMessage = { role: "system", content: system.map(blockToPart) };
  if (!jsonEqual(systemContent(message), system)) {
    message.provider_data = { anthropic: { blocks: system } };
  }
  return message;
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
export function messageContent(message: ChatMessage): string | AnthropicContentBlock[] {
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

export function systemContent(message: ChatMessage): string | AnthropicTextBlock[] {
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
export function storedBlocks(message: ChatMessage): string | AnthropicContentBlock[] | undefined {
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
  const role: AnthropicRole = message.role === "assistant" ? "assistant" : "user";
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
