/**
 * @module formats/anthropic/to-blocks
 * The Anthropic content `toAnthropic` builds for one canonical message from
 * its canonical fields (stored blocks aside): text, images and documents as
 * blocks, tool calls as tool_use blocks, a tool message as a tool_result,
 * thinking blocks from provider data; whitespace-only text left out next to
 * other blocks, since Anthropic rejects it.
 */

import { dataUrlText, fileDataUrl, isTextMediaType } from "../../messages/data-url.js";
import { isRecord } from "../../messages/input-checks.js";
import type {
  ChatMessage,
  ContentPart,
  FilePart,
  MessageContent,
  ToolCall,
} from "../../messages/types.js";
import type {
  AnthropicBlock,
  AnthropicContentBlock,
  AnthropicDocumentBlock,
  AnthropicDocumentSource,
  AnthropicImageBlock,
  AnthropicRedactedThinkingBlock,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
} from "./types.js";

const dataUrlPattern = /^data:([^;,]+);base64,/;

const IMAGE_MEDIA_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

/**
 * The block of a file part: a PDF or text document (its `filename` as the title), an image, or
 * a document of the Files API by id; undefined for what Anthropic cannot hold.
 */
export function fileToBlock(
  part: FilePart,
): AnthropicDocumentBlock | AnthropicImageBlock | undefined {
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

function isBlank(block: AnthropicBlock): boolean {
  return block.type === "text" && typeof block.text === "string" && block.text.trim() === "";
}

/** Whitespace-only text blocks are dropped when other blocks remain: Anthropic rejects them. */
export function dropBlankText(blocks: AnthropicBlock[]): AnthropicBlock[] {
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
