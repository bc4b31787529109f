/**
 * @module formats/anthropic/blocks
 * One canonical message and its Anthropic content blocks, both ways: the
 * messages one Anthropic turn stands for, the blocks `toAnthropic` builds for
 * one message, and the original blocks kept in `provider_data.anthropic.blocks`
 * when rebuilding would not give them back (see `formats/anthropic/convert`
 * for the mapping).
 */

import type { MessageProblem } from "../../errors/condense-error.js";
import {
  dataUrlText,
  fileDataUrl,
  isTextMediaType,
  textToBase64,
} from "../../messages/data-url.js";
import { isRecord, ProblemCollector } from "../../messages/input-checks.js";
import type {
  ChatMessage,
  ContentPart,
  FilePart,
  MessageContent,
  ToolCall,
} from "../../messages/types.js";
import { jsonEqual } from "../json-equal.js";
import { checkMessage, checkSystem } from "./parse.js";
import type {
  AnthropicContainerUploadBlock,
  AnthropicContentBlock,
  AnthropicDocumentBlock,
  AnthropicDocumentSource,
  AnthropicImageBlock,
  AnthropicMessage,
  AnthropicRedactedThinkingBlock,
  AnthropicRole,
  AnthropicSearchResultBlock,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicToolResultBlock,
  AnthropicToolResultContentBlock,
  AnthropicToolUseBlock,
} from "./types.js";

// ---------------------------------------------------------------------------
// Anthropic → canonical

const dataUrlPattern = /^data:([^;,]+);base64,/;

function imageToPart(block: AnthropicImageBlock): ContentPart {
  const source = block.source;
  // An image of the Files API has no canonical form (image_url takes a URL): named in text.
  if (source.type === "file") return { type: "text", text: `[image: file ${source.file_id}]` };
  const url =
    source.type === "base64" ? `data:${source.media_type};base64,${source.data}` : source.url;
  return { type: "image_url", image_url: { url } };
}

function filePart(file: FilePart["file"], title: string | null | undefined): FilePart {
  return { type: "file", file: typeof title === "string" ? { ...file, filename: title } : file };
}

function documentToParts(block: AnthropicDocumentBlock): ContentPart[] {
  const { source, title } = block;
  switch (source.type) {
    case "base64":
      return [filePart({ file_data: `data:${source.media_type};base64,${source.data}` }, title)];
    case "text":
      return [
        filePart(
          { file_data: `data:${source.media_type};base64,${textToBase64(source.data)}` },
          title,
        ),
      ];
    case "file":
      return [filePart({ file_id: source.file_id }, title)];
    case "url": {
      // Chat Completions' file part takes no URL: the document is named in text.
      const name = typeof title === "string" ? ` ${JSON.stringify(title)}` : "";
      return [{ type: "text", text: `[document${name}: ${source.url}]` }];
    }
    default:
      return typeof source.content === "string"
        ? [{ type: "text", text: source.content }]
        : source.content.map(blockToPart);
  }
}

function searchResultText(block: AnthropicSearchResultBlock): string {
  const texts = block.content.map((item) => item.text);
  return [`[search result: ${block.title} (${block.source})]`, ...texts].join("\n");
}

/** The blocks of a user turn besides tool results. */
type UserTurnBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicDocumentBlock
  | AnthropicSearchResultBlock
  | AnthropicContainerUploadBlock;

/** The blocks of a user turn other than tool results (the parse put only user blocks there). */
function isUserContentBlock(block: AnthropicContentBlock): block is UserTurnBlock {
  return (
    block.type !== "tool_result" &&
    block.type !== "tool_use" &&
    block.type !== "thinking" &&
    block.type !== "redacted_thinking"
  );
}

function blockToPart(block: AnthropicTextBlock | AnthropicImageBlock): ContentPart {
  return block.type === "text" ? { type: "text", text: block.text } : imageToPart(block);
}

/**
 * The canonical parts of a user-side block. Blocks without a canonical equivalent (search
 * results, container uploads, tool references) become a text part saying what they hold; the
 * block itself is kept in `provider_data.anthropic.blocks`.
 */
function blockToParts(block: UserTurnBlock | AnthropicToolResultContentBlock): ContentPart[] {
  switch (block.type) {
    case "text":
    case "image":
      return [blockToPart(block)];
    case "document":
      return documentToParts(block);
    case "search_result":
      return [{ type: "text", text: searchResultText(block) }];
    case "container_upload":
      return [{ type: "text", text: `[container upload: file ${block.file_id}]` }];
    default:
      return [{ type: "text", text: `[tool reference: ${block.tool_name}]` }];
  }
}

function toolResultContent(block: AnthropicToolResultBlock): MessageContent {
  const content = block.content;
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content.flatMap(blockToParts);
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
    } else if (isUserContentBlock(block)) {
      parts.push(...blockToParts(block));
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

const IMAGE_MEDIA_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/**
 * The block of a file part: a PDF or text document (its `filename` as the title), an image, or
 * a document of the Files API by id; undefined for what Anthropic cannot hold.
 */
function fileToBlock(part: FilePart): AnthropicDocumentBlock | AnthropicImageBlock | undefined {
  const { file_data: data, file_id: id, filename } = part.file;
  let source: AnthropicDocumentSource;
  if (data !== undefined) {
    const url = fileDataUrl(data);
    const text = isTextMediaType(url.mediaType) ? dataUrlText(url) : undefined;
    if (url.mediaType === "application/pdf" && url.base64) {
      source = { type: "base64", media_type: "application/pdf", data: url.payload };
    } else if (text !== undefined) {
      source = { type: "text", media_type: "text/plain", data: text };
    } else if (IMAGE_MEDIA_TYPES.has(url.mediaType) && url.base64) {
      return {
        type: "image",
        source: { type: "base64", media_type: url.mediaType, data: url.payload },
      };
    } else {
      return undefined;
    }
  } else if (id !== undefined) {
    source = { type: "file", file_id: id };
  } else {
    return undefined;
  }
  const block: AnthropicDocumentBlock = { type: "document", source };
  if (filename !== undefined) block.title = filename;
  return block;
}

/** What stands in for a part Anthropic cannot hold; `toAnthropic` refuses such messages first. */
function unsupportedText(part: ContentPart): AnthropicTextBlock {
  return { type: "text", text: part.type === "input_audio" ? "[audio]" : "[file]" };
}

function partToBlock(
  part: ContentPart,
): AnthropicTextBlock | AnthropicImageBlock | AnthropicDocumentBlock {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text };
    case "file":
      return fileToBlock(part) ?? unsupportedText(part);
    case "input_audio":
      return unsupportedText(part);
    default: {
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
  }
}

/**
 * Parts of the messages that Anthropic cannot hold and that no stored block stands for: audio
 * (Claude takes none), and files other than PDF, text and JPEG/PNG/GIF/WebP images.
 * `toAnthropic` refuses them rather than drop them; `validateMessages` reports them.
 */
export function anthropicUnsupportedParts(messages: readonly ChatMessage[]): MessageProblem[] {
  const problems: MessageProblem[] = [];
  messages.forEach((message, index) => {
    const content = message.content;
    if (!Array.isArray(content)) return;
    const found: MessageProblem[] = [];
    content.forEach((part, partIndex) => {
      const path = `content[${partIndex}]`;
      if (part.type === "input_audio") {
        found.push({
          index,
          path,
          kind: "unsupported_part",
          message:
            "an input_audio part has no Anthropic equivalent (Claude takes no audio); transcribe it into text, or send this conversation in the openai format",
        });
      } else if (part.type === "file" && fileToBlock(part) === undefined) {
        const type = fileDataUrl(part.file.file_data ?? "").mediaType;
        found.push({
          index,
          path,
          kind: "unsupported_part",
          message: `a file of type ${type} has no Anthropic equivalent (documents are PDF or plain text, images JPEG, PNG, GIF or WebP); convert it to PDF or text, or send this conversation in the openai format`,
        });
      }
    });
    if (found.length > 0 && storedBlocks(message) === undefined) problems.push(...found);
  });
  return problems;
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
  return content.map((part) => ({ type: "text", text: partAsText(part) }));
}

/** A part as system text (Anthropic's `system` takes text blocks only). */
function partAsText(part: ContentPart): string {
  switch (part.type) {
    case "text":
      return part.text;
    case "image_url":
      return part.image_url.url;
    case "file":
      return `[file${part.file.filename === undefined ? "" : ` ${part.file.filename}`}]`;
    default:
      return "[audio]";
  }
}

/**
 * Stored blocks, if they are still what the message's canonical fields say (less whitespace-only
 * text next to other blocks, as for rebuilt blocks); else undefined.
 */
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
    if (!jsonEqual(current.content, message.content)) return undefined;
    return typeof stored === "string"
      ? stored
      : (dropBlankText(stored as AnthropicTextBlock[]) as AnthropicTextBlock[]);
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
  if (!same) return undefined;
  // Kept verbatim, but never with the blank text Anthropic rejects next to other blocks.
  return typeof stored === "string" ? stored : dropBlankText(stored as AnthropicContentBlock[]);
}
