/**
 * @module compact/boundaries
 * Where the protected head ends and the protected tail begins. Neither
 * boundary ever separates an assistant tool call from its results, the tail
 * always holds the messages after the last assistant turn
 * (`compact/protected-tail`), and the previous summary (the message
 * `compact/summary-anchor` recognised) falls in the compacted middle so that
 * it is updated rather than kept beside a new one, unless it was merged into
 * one of those newest messages (the summary pass then takes it out of the
 * tail); any other marker block is ordinary content.
 */

import type { ChatMessage } from "../messages/types.js";

export interface Boundaries {
  /** Messages `[0, headEnd)` are the head. */
  headEnd: number;
  /** Messages `[tailStart, length)` are the tail; the middle lies between. */
  tailStart: number;
}

function isSystemLike(message: ChatMessage): boolean {
  return message.role === "system" || message.role === "developer";
}

/** Moves an index forward past tool results, so it never lands inside a call's result block. */
function skipToolResults(messages: readonly ChatMessage[], index: number): number {
  let i = index;
  while (i < messages.length && messages[i]?.role === "tool") i++;
  return i;
}

/** Moves an index back to the assistant message whose results it points into. */
function backToToolCall(messages: readonly ChatMessage[], index: number, floor: number): number {
  let i = index;
  while (i > floor && messages[i]?.role === "tool") i--;
  return i;
}

/**
 * The head: leading system/developer messages plus the next `headMessages`
 * messages (the first exchange), extended over the results of a trailing tool
 * call and stopped before the previous summary (at index `summaryAt`).
 */
export function findHeadEnd(
  messages: readonly ChatMessage[],
  headMessages: number,
  summaryAt?: number,
): number {
  let end = 0;
  while (end < messages.length) {
    const message = messages[end];
    if (message === undefined || !isSystemLike(message) || end === summaryAt) break;
    end++;
  }
  let taken = 0;
  while (end < messages.length && taken < headMessages) {
    if (end === summaryAt) return end;
    end++;
    taken++;
  }
  return skipToolResults(messages, end);
}

/**
 * The tail: the newest messages within `tailTokens`, at least
 * `minTailMessages`, never starting on a tool result or on the previous summary
 * (at index `summaryAt`), and always holding the messages from `newestFrom` on
 * with the assistant message whose calls they answer.
 */
export function findTailStart(
  messages: readonly ChatMessage[],
  tokens: readonly number[],
  headEnd: number,
  tailTokens: number,
  minTailMessages: number,
  summaryAt?: number,
  newestFrom: number = messages.length,
): number {
  let start = messages.length;
  let used = 0;
  while (start > headEnd) {
    const cost = tokens[start - 1] ?? 0;
    const kept = messages.length - start;
    if (kept >= minTailMessages && used + cost > tailTokens) break;
    used += cost;
    start--;
  }
  start = backToToolCall(messages, start, headEnd);
  // A summary in the tail would survive verbatim beside the new one; fold it into the middle instead.
  if (summaryAt !== undefined && summaryAt >= start)
    start = skipToolResults(messages, summaryAt + 1);
  // What the model asked for and has not seen yet is never compacted (`compact/protected-tail`).
  start = Math.min(start, backToToolCall(messages, newestFrom, headEnd));
  return Math.max(start, headEnd);
}

/** What the boundaries depend on besides the messages and their token counts. */
export interface BoundaryOptions {
  headMessages: number;
  tailTokens: number;
  minTailMessages: number;
  /** Index of the previous summary, if one was recognised. */
  summaryAt?: number | undefined;
  /** Index of the first message after the last assistant turn (`compact/protected-tail`). */
  newestFrom?: number | undefined;
}

export function findBoundaries(
  messages: readonly ChatMessage[],
  tokens: readonly number[],
  options: BoundaryOptions,
): Boundaries {
  const headEnd = findHeadEnd(messages, options.headMessages, options.summaryAt);
  const tailStart = findTailStart(
    messages,
    tokens,
    headEnd,
    options.tailTokens,
    options.minTailMessages,
    options.summaryAt,
    options.newestFrom,
  );
  return { headEnd, tailStart };
}

/**
 * A smaller tail budget for a pass that failed because its tail left too little to compact: half
 * of `options.tailTokens`, halved again while the tail boundary stays where it was. Undefined when
 * no smaller budget moves the boundary (the tail is down to `minTailMessages`, or to nothing).
 */
export function smallerTailBudget(
  messages: readonly ChatMessage[],
  tokens: readonly number[],
  options: Omit<BoundaryOptions, "summaryAt">,
): number | undefined {
  const { tailStart } = findBoundaries(messages, tokens, options);
  let budget = Math.floor(options.tailTokens / 2);
  for (;;) {
    const moved = findBoundaries(messages, tokens, { ...options, tailTokens: budget });
    if (moved.tailStart > tailStart) return budget;
    if (budget === 0) return undefined;
    budget = Math.floor(budget / 2);
  }
}
