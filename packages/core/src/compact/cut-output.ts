/**
 * @module compact/cut-output
 * Cuts one tool output to a token size, the way agent CLIs cut a long
 * command's output: its head and its tail are kept, and a marker in between
 * says how much was cut (tokens, and which lines) and how to fetch the whole
 * output back. For an output the model has not seen yet, which must neither
 * be dropped nor sent whole when it cannot fit (`compact/fit-context`).
 *
 * Exact: the cut message's `messageTokens` is at most the size asked for.
 * The engine has no token decoder, so the head and the tail are found by a
 * search over their length in characters, counting each candidate.
 */

import type { ChatMessage, ContentPart } from "../messages/types.js";
import { countTokens, messageTokens } from "../tokens/count.js";

/** Tokens of head and tail together below which a cut output keeps nothing but its marker. */
const MIN_KEPT_TOKENS = 16;
/** Attempts at shrinking the kept text when the whole message still counts over its size. */
const MAX_SHRINKS = 8;

/** What a cut removed, for the marker and the caller's bookkeeping. */
export interface CutFigures {
  /** Tokens of the output's text that the cut left out. */
  cutTokens: number;
  /** The output's lines, and the first and last line (from 1) the cut left out; undefined when it cut within one line. */
  lines: { total: number; from: number; to: number } | undefined;
  /** Characters the cut left out. */
  cutChars: number;
}

/** The marker a cut output carries between its head and its tail; `why` ends its "so ...". */
export function cutMarker(
  toolName: string,
  reference: string,
  figures: CutFigures,
  why = "the context fits its window",
): string {
  const what =
    figures.lines === undefined
      ? `${figures.cutChars} characters`
      : figures.lines.from === figures.lines.to
        ? `line ${figures.lines.from} of ${figures.lines.total}`
        : `lines ${figures.lines.from}–${figures.lines.to} of ${figures.lines.total}`;
  return `[Condense cut ${figures.cutTokens} tokens (${what}) from the middle of this ${toolName} output so ${why}; fetch the whole output by ${reference}.]`;
}

/** Whether `text` holds a cut marker (an output cut before is not cut again). */
export function isCutOutput(text: string): boolean {
  return text.includes("[Condense cut ") && text.includes(" from the middle of this ");
}

/**
 * Whether `text` is a cut marker alone (the output kept nothing of its head or tail): it is at
 * its floor, and cut again it would only become a marker of its own marker.
 */
export function isMarkerOnly(text: string): boolean {
  // A kept head ends in a line break before the marker, a kept tail starts after one.
  return text.startsWith("[Condense cut ") && !text.includes("\n") && isCutOutput(text);
}

/** The text a tool message carries: string content, or its text parts joined (other parts stay). */
function textOf(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (content === null) return "";
  return content
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("\n");
}

/** `message` with `text` in place of its text: string content, or one text part before its other parts. */
function withText(message: ChatMessage, text: string): ChatMessage {
  if (!Array.isArray(message.content)) return { ...message, content: text };
  const others: ContentPart[] = message.content.filter((part) => part.type !== "text");
  return { ...message, content: [{ type: "text", text }, ...others] };
}

/** The longest prefix of `text` (or suffix, `fromEnd`) within `budget` tokens, by characters. */
function charEdge(text: string, budget: number, model: string, fromEnd: boolean): string {
  if (budget <= 0 || text.length === 0) return "";
  const piece = (chars: number) =>
    fromEnd ? text.slice(text.length - chars) : text.slice(0, chars);
  // Tokens of English and code run 3–5 characters; 16 bounds the search for any text that counts.
  let high = Math.min(text.length, budget * 16);
  let low = 0;
  if (countTokens(piece(high), model) <= budget) low = high;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (countTokens(piece(mid), model) <= budget) low = mid;
    else high = mid - 1;
  }
  return piece(low);
}

/**
 * How many whole lines at the start of `lineTokens` (or the end, `fromEnd`), at most `max`, fit
 * in `budget` tokens, each line counted once with its line break. The sum of lines' counts is
 * within a token or two of the run's count (the tokenizer splits at line breaks); the caller
 * checks the result.
 */
function wholeLines(
  lineTokens: readonly number[],
  budget: number,
  max: number,
  fromEnd: boolean,
): number {
  let used = 0;
  let taken = 0;
  while (taken < max) {
    const cost = lineTokens[fromEnd ? lineTokens.length - 1 - taken : taken] ?? 0;
    if (used + cost > budget) break;
    used += cost;
    taken++;
  }
  return taken;
}

/** The head and the tail of `text` within `budget` tokens, half each, in whole lines where one fits. */
function headAndTail(
  text: string,
  lines: readonly string[],
  lineTokens: readonly number[],
  budget: number,
  model: string,
): { head: string; tail: string } {
  if (budget <= 0) return { head: "", tail: "" };
  const headBudget = Math.ceil(budget / 2);
  const headLines = wholeLines(lineTokens, headBudget, lines.length, false);
  const head =
    headLines > 0
      ? `${lines.slice(0, headLines).join("\n")}\n`
      : charEdge(text, headBudget, model, false);
  const rest = text.slice(head.length);
  const tailBudget = Math.floor(budget / 2);
  const tailLines =
    headLines > 0 ? wholeLines(lineTokens, tailBudget, lines.length - headLines - 1, true) : 0;
  const tail =
    tailLines > 0
      ? lines.slice(lines.length - tailLines).join("\n")
      : charEdge(rest, tailBudget, model, true);
  return { head, tail };
}

function countLines(text: string): number {
  let lines = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lines++;
  return lines;
}

function figuresOf(text: string, head: string, tail: string, model: string): CutFigures {
  const middle = text.slice(head.length, text.length - tail.length);
  const cutTokens = countTokens(middle, model);
  const wholeLines = head.endsWith("\n") || head === "";
  const tailWhole = tail === "" || text.charCodeAt(text.length - tail.length - 1) === 10;
  if (!wholeLines || !tailWhole) return { cutTokens, lines: undefined, cutChars: middle.length };
  const total = countLines(text);
  const from = head === "" ? 1 : countLines(head);
  const to = total - (tail === "" ? 0 : countLines(tail));
  return {
    cutTokens,
    lines: to >= from ? { total, from, to } : undefined,
    cutChars: middle.length,
  };
}

export interface CutOutput {
  message: ChatMessage;
  figures: CutFigures;
}

/**
 * `message` (a tool output) cut to at most `maxTokens` (`messageTokens`, marker included): its
 * head and tail with the marker between them. Undefined when it already fits, or when not even
 * its marker alone fits in `maxTokens`.
 */
export function cutToolOutput(
  message: ChatMessage,
  maxTokens: number,
  model: string,
  marker: (figures: CutFigures) => string,
  { keepNothing = false }: { keepNothing?: boolean } = {},
): CutOutput | undefined {
  const whole = messageTokens(message, model);
  if (whole <= maxTokens) return undefined;
  const text = textOf(message);
  // What the message counts without its text (framing, images and other parts), and with a marker
  // of the longest figures: what is left is for the head and the tail.
  const frame = messageTokens(withText(message, ""), model);
  const widest = marker({
    cutTokens: whole,
    lines: { total: text.length, from: text.length, to: text.length },
    cutChars: text.length,
  });
  const lines = text.split("\n");
  const lineTokens = keepNothing ? [] : lines.map((line) => countTokens(`${line}\n`, model));
  let kept = keepNothing ? 0 : maxTokens - frame - countTokens(`\n${widest}\n`, model);
  for (let attempt = 0; attempt <= MAX_SHRINKS; attempt++) {
    const share = kept < MIN_KEPT_TOKENS ? 0 : kept;
    // Nothing but the marker: only the marker's length decides whether that fits.
    const { head, tail } = headAndTail(text, lines, lineTokens, share, model);
    const figures = figuresOf(text, head, tail, model);
    const before = head === "" || head.endsWith("\n") ? head : `${head}\n`;
    const after = tail === "" ? "" : `\n${tail}`;
    const cut = withText(message, `${before}${marker(figures)}${after}`);
    const tokens = messageTokens(cut, model);
    if (tokens <= maxTokens) return { message: cut, figures };
    if (share === 0) return undefined;
    // Tokens merge across the joins and the figures' digits vary: take off what is over, and more.
    kept = share - (tokens - maxTokens) - 2 * (attempt + 1);
  }
  return undefined;
}
