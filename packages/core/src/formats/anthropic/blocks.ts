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
import { opaqueText } from "../opaque.js";
import { withoutCacheMarkers } from "./cache-markers.js";
import { checkMessage, checkSystem } from "./parse.js";
import {
  type AnthropicBlock,
  type AnthropicContainerUploadBlock,
  type AnthropicContentBlock,
  type AnthropicDocumentBlock,
  type AnthropicDocumentSource,
  type AnthropicImageBlock,
  type AnthropicMessage,
  type AnthropicRedactedThinkingBlock,
  type AnthropicRole,
  type AnthropicSearchResultBlock,
  type AnthropicTextBlock,
  type AnthropicThinkingBlock,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
  isKnownBlock,
  type KnownBlock,
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
function isUserContentBlock(block: KnownBlock): block is UserTurnBlock {
  return (
    block.type !== "tool_result" &&
    block.type !== "tool_use" &&
    block.type !== "thinking" &&
    block.type !== "redacted_thinking" &&
    block.type !== "tool_reference"
  );
}

/** Fields of an opaque block its canonical text leaves out: its type (shown) and its cache marker. */
const OPAQUE_OMIT: ReadonlySet<string> = new Set(["type", "cache_control"]);

/** The text part standing for a block of a type the engine does not know (`[server_tool_use] {…}`). */
function opaquePart(block: AnthropicBlock | KnownBlock): ContentPart {
  return { type: "text", text: opaqueText(block.type, block, OPAQUE_OMIT) };
}

function blockToPart(block: AnthropicTextBlock | AnthropicImageBlock): ContentPart {
  return block.type === "text" ? { type: "text", text: block.text } : imageToPart(block);
}

/**
 * The canonical parts of a user-side block. Blocks without a canonical equivalent (search
 * results, container uploads, tool references) become a text part saying what they hold; the
 * block itself is kept in `provider_data.anthropic.blocks`.
 */
function blockToParts(block: AnthropicBlock | KnownBlock): ContentPart[] {
  if (!isKnownBlock(block)) return [opaquePart(block)];
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
    case "tool_reference":
      return [{ type: "text", text: `[tool reference: ${block.tool_name}]` }];
    default:
      // Blocks of the assistant's side never reach here (the parse puts them in assistant turns).
      return [opaquePart(block)];
  }
}

function toolResultContent(block: AnthropicToolResultBlock): MessageContent {
  const content = block.content;
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  // Nested blocks of a type the engine does not know are kept opaque as well.
  return (content as AnthropicBlock[]).flatMap(blockToParts);
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

/**
 * The canonical messages one Anthropic turn stands for (without provider data but a system turn's
 * flag).
 */
export function turnToCanonical(turn: AnthropicMessage): ChatMessage[] {
  if (turn.role === "system") {
    const message = systemToCanonical(turn.content as string | AnthropicTextBlock[]);
    const { blocks: _kept, ...anthropic } = message.provider_data?.anthropic ?? {};
    return [{ ...message, provider_data: { anthropic: { ...anthropic, in_messages: true } } }];
  }
  if (typeof turn.content === "string") return [{ role: turn.role, content: turn.content }];
  if (turn.role === "assistant") {
    const parts: ContentPart[] = [];
    const calls: ToolCall[] = [];
    const thinking: unknown[] = [];
    for (const block of turn.content) {
      if (!isKnownBlock(block)) parts.push(opaquePart(block));
      else if (block.type === "text") parts.push(blockToPart(block));
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
    if (!isKnownBlock(block)) {
      parts.push(opaquePart(block));
    } else if (block.type === "tool_result") {
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

/**
 * The original blocks of each canonical message of one turn, for exact round-trips, and the index
 * in the turn of each of them.
 */
export function turnBlocksPerMessage(
  turn: AnthropicMessage,
): Array<{ content: string | AnthropicBlock[]; at: number[] }> {
  if (typeof turn.content === "string") return [{ content: turn.content, at: [0] }];
  if (turn.role !== "user") return [{ content: turn.content, at: turn.content.map((_, i) => i) }];
  const perMessage: Array<{ content: AnthropicBlock[]; at: number[] }> = [];
  const others: { content: AnthropicBlock[]; at: number[] } = { content: [], at: [] };
  turn.content.forEach((block, at) => {
    if (block.type === "tool_result") perMessage.push({ content: [block], at: [at] });
    else {
      others.content.push(block);
      others.at.push(at);
    }
  });
  if (others.content.length > 0) perMessage.push(others);
  return perMessage;
}

/** Keeps `original` (without its cache markers) in provider data when rebuilding would not give it back. */
export function keepBlocksIfNeeded(
  message: ChatMessage,
  original: string | AnthropicBlock[],
): void {
  const kept = typeof original === "string" ? original : withoutCacheMarkers(original);
  const rebuilt = message.role === "system" ? systemContent(message) : messageContent(message);
  if (jsonEqual(rebuilt, kept)) return;
  const anthropic = {
    ...message.provider_data?.anthropic,
    blocks: typeof kept === "string" ? [kept] : kept,
  };
  message.provider_data = { ...message.provider_data, anthropic };
}

export function systemToCanonical(system: string | AnthropicTextBlock[]): ChatMessage {
  if (typeof system === "string") return { role: "system", content: system };
  const message: ChatMessage = { role: "system", content: system.map(blockToPart) };
  keepBlocksIfNeeded(message, system);
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

function isBlank(block: AnthropicBlock): boolean {
  return block.type === "text" && typeof block.text === "string" && block.text.trim() === "";
}

/** Whitespace-only text blocks are dropped when other blocks remain: Anthropic rejects them. */
function dropBlankText(blocks: AnthropicBlock[]): AnthropicBlock[] {
  const kept = blocks.filter((block) => !isBlank(block));
  return kept.length > 0 ? kept : blocks;
}

function contentBlocks(content: MessageContent): AnthropicContentBlock[] {
  if (content === null) return [];
  if (typeof content === "string") return [{ type: "text", text: content }];
  return content.map(partToBlock);
}

/**
 * The tool_use block of a call. A custom tool call (free text) becomes a tool_use whose input is
 * `{ "input": "<text>" }`, so its result still pairs with it; arguments that are not a JSON object
 * are wrapped as `{ "arguments": "<text>" }` (`input` must be an object).
 */
function toolUseFromCall(call: ToolCall): AnthropicToolUseBlock {
  if (call.type === "custom") {
    return {
      type: "tool_use",
      id: call.id,
      name: call.custom.name,
      input: { input: call.custom.input },
    };
  }
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
export function messageContent(message: ChatMessage): string | AnthropicBlock[] {
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
function nonEmpty(blocks: AnthropicBlock[]): string | AnthropicBlock[] {
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
 * Stored blocks, if they are still what the message's canonical fields say, without any cache
 * marker (one stored before markers were left out is stale: it belonged to an earlier request)
 * and less whitespace-only text next to other blocks (as for rebuilt blocks); else undefined.
 */
export function storedBlocks(message: ChatMessage): string | AnthropicBlock[] | undefined {
  const blocks = message.provider_data?.anthropic?.blocks;
  if (!Array.isArray(blocks) || blocks.length === 0) return undefined;
  const stored: string | unknown[] =
    blocks.length === 1 && typeof blocks[0] === "string"
      ? blocks[0]
      : withoutCacheMarkers(blocks as AnthropicBlock[]);
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
  return typeof stored === "string" ? stored : dropBlankText(stored as AnthropicBlock[]);
}
