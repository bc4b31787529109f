/**
 * @module summary/llm/chunk
 * Turns messages into the plain-text transcript a summarizer model reads, and
 * splits a transcript that does not fit the summarizer's window into chunks.
 *
 * Rendering: turns are labelled `User:`, `Assistant:`, `Tool (name):`; tool
 * output, and a `<compacted-context>` block quoted in any other message, is
 * fenced as untrusted data; no message text can spell a tag of the prompt
 * (`escapeDataTags`), so none can close the fence or the transcript;
 * reasoning (`provider_data`, inline `<think>` blocks) is never rendered; every message is capped at 10,000
 * characters, keeping its head and tail and marking the cut. Chunking never
 * separates an assistant's tool calls from their results.
 *
 * Everything here is pure: token counting is passed in.
 */

import {
  partPlaceholder,
  toolCallInput,
  toolCallName,
  toolNamesById,
} from "../../messages/content.js";
import type { ChatMessage, MessageContent } from "../../messages/types.js";
import { splitSummaryBlocks } from "../template.js";

/** Characters of one message the summarizer sees at most. */
export const MESSAGE_CHAR_CAP = 10_000;
/** Hard ceiling of one chunk, whatever the window. */
export const MAX_CHUNK_TOKENS = 12_000;
/** Share of the summarizer's window one chunk may use when messages are small... */
export const CHUNK_RATIO = 0.4;
/** ...lowered towards this when the average message is large. */
export const MIN_CHUNK_RATIO = 0.15;
/** Messages larger than this share of the window count as large. */
export const LARGE_MESSAGE_SHARE = 0.1;
/** The smallest cap an oversize tool-call group is squeezed to. */
const MIN_SQUEEZED_CAP = 600;

export const UNTRUSTED_OPEN = "<untrusted-data>";
export const UNTRUSTED_CLOSE = "</untrusted-data>";

export type TokenCounter = (text: string) => number;

export interface RenderOptions {
  /** Characters per message; default `MESSAGE_CHAR_CAP`. */
  charCap?: number;
  /** Applied to every text before capping (redaction), so a cut never splits a secret. */
  transform?: (text: string) => string;
}

/** One unit the chunker never splits: a message, or an assistant message with the results of its tool calls. */
export interface RenderedGroup {
  /** Indices of the group's messages in the input. */
  start: number;
  end: number;
  text: string;
  tokens: number;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Keeps at most `cap` characters of `text`: its head and its tail, with a
 * marker saying how much was cut in between.
 */
export function capText(text: string, cap: number = MESSAGE_CHAR_CAP): string {
  if (text.length <= cap) return text;
  const marker = (cut: number) => `\n[… ${cut.toLocaleString("en-US")} characters cut …]\n`;
  // The marker's length depends on the number it prints; size it for the worst case.
  const room = Math.max(0, cap - marker(text.length).length);
  let headEnd = Math.ceil(room / 2);
  let tailStart = text.length - (room - headEnd);
  // Never split a surrogate pair.
  if (headEnd > 0 && isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd -= 1;
  if (tailStart < text.length && tailStart > 0 && isHighSurrogate(text.charCodeAt(tailStart - 1)))
    tailStart += 1;
  return text.slice(0, headEnd) + marker(tailStart - headEnd) + text.slice(tailStart);
}

/** Removes inline reasoning blocks (`<think>…</think>`, `<thinking>…</thinking>`); an unclosed one runs to the end. */
export function stripInlineReasoning(text: string): string {
  let out = "";
  let position = 0;
  const lower = text.toLowerCase();
  for (;;) {
    const think = lower.indexOf("<think", position);
    if (think === -1) break;
    const after = lower.slice(think + 6, think + 10);
    const tag = after.startsWith(">") ? "think" : after.startsWith("ing>") ? "thinking" : null;
    if (tag === null) {
      out += text.slice(position, think + 6);
      position = think + 6;
      continue;
    }
    out += text.slice(position, think);
    const close = lower.indexOf(`</${tag}>`, think);
    if (close === -1) return out.trimEnd();
    position = close + tag.length + 3;
  }
  return out + text.slice(position);
}

/** The text parts of a message's content; images, files and audio become a marker, nothing else is read. */
export function contentText(content: MessageContent): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content
    .map((part) => (part.type === "text" ? part.text : partPlaceholder(part)))
    .join("\n");
}

/**
 * Anything in data that a model could read as a tag of the summarizer's prompt
 * (`</untrusted-data>`, `< /untrusted_data >`, `</transcript>`,
 * `<previous-summary>`, ... in any case or spacing): its angle brackets become
 * `‹ ›`, so data can neither close the tag it sits in nor open another.
 */
const DATA_TAG =
  /<(\s{0,8}\/?\s{0,8}(?:untrusted|transcript|previous|partial|ledger|focus|identifier|operator)[^<>\n]{0,64})(>?)/gi;

/** `text` with every look-alike of a prompt tag made inert (see `DATA_TAG`). */
export function escapeDataTags(text: string): string {
  return text.replace(DATA_TAG, (_tag, inner: string, close: string) =>
    close === "" ? `‹${inner}` : `‹${inner}›`,
  );
}

/** Wraps `text` in the untrusted-data fence; tags inside it are made inert first. */
function fenced(text: string): string {
  return `${UNTRUSTED_OPEN}\n${escapeDataTags(text)}\n${UNTRUSTED_CLOSE}`;
}

/** Message text as data: escaped, with each quoted `<compacted-context>` block fenced as untrusted. */
function renderText(text: string): string {
  return splitSummaryBlocks(text)
    .map((segment) =>
      segment.quoted ? `\n${fenced(segment.text)}\n` : escapeDataTags(segment.text),
    )
    .join("");
}

const roleLabels: Record<ChatMessage["role"], string> = {
  system: "System",
  developer: "Developer",
  user: "User",
  assistant: "Assistant",
  tool: "Tool",
};

/** Renders one message as a labelled turn. `provider_data` (reasoning) is never read. */
export function renderMessage(
  message: ChatMessage,
  toolNames: ReadonlyMap<string, string>,
  options: RenderOptions = {},
): string {
  const cap = options.charCap ?? MESSAGE_CHAR_CAP;
  const transform = options.transform ?? ((text: string) => text);
  if (message.role === "tool") {
    const name =
      (message.tool_call_id && toolNames.get(message.tool_call_id)) || message.name || "unknown";
    const body = capText(transform(contentText(message.content)), cap);
    return `Tool (${escapeDataTags(name)}):\n${fenced(body)}`;
  }
  let text = contentText(message.content);
  if (message.role === "assistant") text = stripInlineReasoning(text);
  const lines = text.trim() === "" ? [] : [text.trim()];
  for (const call of message.tool_calls ?? []) {
    lines.push(`→ calls ${toolCallName(call)} ${toolCallInput(call)}`);
  }
  const body = capText(transform(lines.join("\n")), cap);
  return `${roleLabels[message.role]}: ${renderText(body)}`;
}

/**
 * Splits messages into groups that must stay together: an assistant message
 * with tool calls and the tool messages that follow it form one group; every
 * other message is a group of its own. Returns `[start, end)` index pairs.
 */
export function groupBoundaries(messages: readonly ChatMessage[]): Array<[number, number]> {
  const groups: Array<[number, number]> = [];
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index];
    const current = groups.at(-1);
    const opensCalls = (candidate: ChatMessage | undefined) =>
      candidate?.role === "assistant" && (candidate.tool_calls?.length ?? 0) > 0;
    if (message?.role === "tool" && current !== undefined && opensCalls(messages[current[0]])) {
      current[1] = index + 1;
    } else {
      groups.push([index, index + 1]);
    }
  }
  return groups;
}

/** Renders the messages group by group, counting each group's tokens. */
export function renderGroups(
  messages: readonly ChatMessage[],
  count: TokenCounter,
  options: RenderOptions = {},
): RenderedGroup[] {
  const toolNames = toolNamesById(messages);
  return groupBoundaries(messages).map(([start, end]) => {
    const text = messages
      .slice(start, end)
      .map((message) => renderMessage(message, toolNames, options))
      .join("\n\n");
    return { start, end, text, tokens: count(text) };
  });
}

/**
 * Tokens one chunk may hold: `min(window × ratio, 12,000)`, the ratio 0.4
 * lowered linearly towards 0.15 as the average message grows past 10% of the
 * window (it reaches 0.15 at 35%), so a few huge messages do not make chunks
 * the summarizer cannot answer within its window.
 */
export function chunkTokenLimit(window: number, averageMessageTokens: number): number {
  const share = window > 0 ? averageMessageTokens / window : 1;
  const ratio = Math.min(
    CHUNK_RATIO,
    Math.max(MIN_CHUNK_RATIO, CHUNK_RATIO - (share - LARGE_MESSAGE_SHARE)),
  );
  return Math.max(1, Math.floor(Math.min(window * ratio, MAX_CHUNK_TOKENS)));
}

/**
 * Re-renders a group that exceeds `limit` with a smaller per-message cap,
 * so a tool call with many large results still fits one chunk (as far as the
 * smallest cap allows) without being split.
 */
export function squeezeGroup(
  messages: readonly ChatMessage[],
  group: RenderedGroup,
  limit: number,
  count: TokenCounter,
  options: RenderOptions = {},
): RenderedGroup {
  let current = group;
  let cap = options.charCap ?? MESSAGE_CHAR_CAP;
  const toolNames = toolNamesById(messages);
  while (current.tokens > limit && cap > MIN_SQUEEZED_CAP) {
    cap = Math.max(MIN_SQUEEZED_CAP, Math.floor((cap * limit * 0.9) / current.tokens));
    const text = messages
      .slice(group.start, group.end)
      .map((message) => renderMessage(message, toolNames, { ...options, charCap: cap }))
      .join("\n\n");
    current = { ...group, text, tokens: count(text) };
  }
  return current;
}

/** Packs groups, in order, into chunks of at most `limit` tokens (a group larger than the limit gets a chunk of its own). */
export function packChunks(groups: readonly RenderedGroup[], limit: number): RenderedGroup[][] {
  const chunks: RenderedGroup[][] = [];
  let current: RenderedGroup[] = [];
  let tokens = 0;
  for (const group of groups) {
    if (current.length > 0 && tokens + group.tokens > limit) {
      chunks.push(current);
      current = [];
      tokens = 0;
    }
    current.push(group);
    tokens += group.tokens;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** The transcript text of a list of groups. */
export function joinGroups(groups: readonly RenderedGroup[]): string {
  return groups.map((group) => group.text).join("\n\n");
}
