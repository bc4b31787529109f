/**
 * @module formats/anthropic/to-canonical
 * The canonical messages one Anthropic turn stands for (see
 * `formats/anthropic/convert` for the mapping): text and images as parts,
 * documents as file parts, tool_use blocks as tool calls, tool_result blocks
 * as tool messages, thinking blocks in provider data, and a text part saying
 * what it holds for a block without a canonical equivalent. The original
 * blocks are kept by `formats/anthropic/stored-blocks` where rebuilding would
 * not give them back.
 */

import { textToBase64 } from "../../messages/data-url.js";
import type {
  ChatMessage,
  ContentPart,
  FilePart,
  MessageContent,
  ToolCall,
} from "../../messages/types.js";
import { opaqueText } from "../opaque.js";
import {
  type AnthropicBlock,
  type AnthropicContainerUploadBlock,
  type AnthropicDocumentBlock,
  type AnthropicImageBlock,
  type AnthropicMessage,
  type AnthropicSearchResultBlock,
  type AnthropicTextBlock,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
  isKnownBlock,
  type KnownBlock,
} from "./types.js";

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
    const blocks = turn.content as string | AnthropicTextBlock[];
    // A turn of per-turn control only (`output_config`) may hold no text: "" is canonical for none.
    const message = systemToCanonical(Array.isArray(blocks) && blocks.length === 0 ? "" : blocks);
    const { blocks: _kept, ...anthropic } = message.provider_data?.anthropic ?? {};
    const { role: _role, content: _content, ...fields } = turn;
    const turnFields = Object.keys(fields).length > 0 ? { turn_fields: fields } : {};
    return [
      {
        ...message,
        provider_data: { anthropic: { ...anthropic, in_messages: true, ...turnFields } },
      },
    ];
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

/** A system prompt as a canonical system message (without its original blocks: see `keepBlocksIfNeeded`). */
export function systemToCanonical(system: string | AnthropicTextBlock[]): ChatMessage {
  if (typeof system === "string") return { role: "system", content: system };
  return { role: "system", content: system.map(blockToPart) };
}
