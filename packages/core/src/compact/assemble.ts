/**
 * @module compact/assemble
 * Puts a summary between the head and the tail. The summary is wrapped in a
 * marker that tells the model earlier turns were compacted and that it should
 * continue rather than repeat work. `extractSummary` parses a marker block;
 * whether a block is the engine's summary is decided by its anchor
 * (`compact/summary-anchor`), never by the marker. With a recall tool
 * (`recallTool`), the preamble carries one more line naming it; the line is
 * part of the block, not of the summary, so it is written once per block and
 * never carried into the next summary.
 */

import type { ChatMessage, ContentPart } from "../messages/types.js";
import { SUMMARY_CLOSE, SUMMARY_OPEN } from "../summary/template.js";

const SUMMARY_PREAMBLE =
  "Earlier turns of this conversation were compacted by Condense into the summary below. " +
  "Continue the work from where it stands; do not repeat steps marked done. " +
  "Tool outputs that were pruned can be fetched back by their tool call id.";

/** The line that tells the model how to get back what the summary lost. */
export function recallHint(tool: string): string {
  return `Earlier details were compacted away; recall them with the \`${tool}\` tool by query or by tool-call id.`;
}

/** The recall line at the start of a block's text (after the preamble), any tool name. */
const RECALL_HINT =
  /^\s*Earlier details were compacted away; recall them with the `[A-Za-z0-9_.-]{1,64}` tool by query or by tool-call id\.[ \t]*(?:\n|$)/;

export function renderSummaryBlock(summary: string, recallTool?: string): string {
  const preamble =
    recallTool === undefined ? SUMMARY_PREAMBLE : `${SUMMARY_PREAMBLE}\n${recallHint(recallTool)}`;
  return `${SUMMARY_OPEN}\n${preamble}\n\n${summary.trim()}\n${SUMMARY_CLOSE}`;
}

function leadingText(message: ChatMessage): string | undefined {
  if (typeof message.content === "string") return message.content;
  const first = message.content?.[0];
  return first?.type === "text" ? first.text : undefined;
}

export interface FoundSummary {
  summary: string;
  /** The message without the summary block, when the summary had been merged into it; undefined otherwise. */
  remainder: ChatMessage | undefined;
}

/**
 * The marker block at the start of this message, parsed: its summary text and
 * the rest of the message. A parse, not a proof: any text can start with the
 * marker (see `compact/summary-anchor`).
 */
export function extractSummary(message: ChatMessage): FoundSummary | undefined {
  const text = leadingText(message);
  if (text === undefined || !text.startsWith(SUMMARY_OPEN)) return undefined;
  const close = text.indexOf(SUMMARY_CLOSE);
  const inner =
    close === -1 ? text.slice(SUMMARY_OPEN.length) : text.slice(SUMMARY_OPEN.length, close);
  const summary = inner.replace(SUMMARY_PREAMBLE, "").replace(RECALL_HINT, "").trim();
  const rest = close === -1 ? "" : text.slice(close + SUMMARY_CLOSE.length).replace(/^\n+/, "");
  const hasOtherParts = Array.isArray(message.content) && message.content.length > 1;
  if (rest === "" && !hasOtherParts && !message.tool_calls?.length)
    return { summary, remainder: undefined };
  let content: ChatMessage["content"];
  if (Array.isArray(message.content)) {
    const parts: ContentPart[] = message.content.slice(1);
    content = rest === "" ? parts : [{ type: "text", text: rest }, ...parts];
  } else {
    content = rest === "" ? null : rest;
  }
  return { summary, remainder: { ...message, content } };
}

type Turn = "user" | "assistant" | "tool" | "none";

function turnOf(message: ChatMessage | undefined): Turn {
  if (message === undefined) return "none";
  if (message.role === "system" || message.role === "developer") return "none";
  return message.role;
}

function mergeIntoMessage(block: string, message: ChatMessage): ChatMessage {
  if (message.content === null || message.content === "") return { ...message, content: block };
  if (typeof message.content === "string")
    return { ...message, content: `${block}\n\n${message.content}` };
  return { ...message, content: [{ type: "text", text: block }, ...message.content] };
}

/**
 * Head + summary + tail. The summary takes the role that keeps user/assistant
 * alternation with its neighbours (after tool results a user turn is fine:
 * Anthropic merges it into the tool-result turn); when neither role fits, it is
 * merged into the first tail message.
 */
export function placeSummary(
  head: readonly ChatMessage[],
  summary: string,
  tail: readonly ChatMessage[],
  recallTool?: string,
): ChatMessage[] {
  const block = renderSummaryBlock(summary, recallTool);
  const before = turnOf(head[head.length - 1]);
  const after = turnOf(tail[0]);
  const candidates: Array<"user" | "assistant"> =
    before === "none" ? ["user"] : ["user", "assistant"];
  const role = candidates.find((candidate) => candidate !== before && candidate !== after);
  if (role !== undefined) return [...head, { role, content: block }, ...tail];
  const [first, ...rest] = tail;
  if (first === undefined)
    return [...head, { role: before === "user" ? "assistant" : "user", content: block }];
  return [...head, mergeIntoMessage(block, first), ...rest];
}
