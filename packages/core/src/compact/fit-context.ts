/**
 * @module compact/fit-context
 * What is served always fits: `fitContext` makes a context fit a token limit
 * without a summarizer, for when compaction alone cannot (the messages after
 * the last assistant turn, which no tier touches, are over by themselves; or
 * they arrived after the compaction). Two steps, cheapest loss first:
 * 1. tool outputs the model has already seen are pruned to placeholders,
 *    oldest first (tier 1's strip, `compact/prune`);
 * 2. tool outputs it has not seen yet, which are never dropped, are cut to
 *    their head and tail (`compact/cut-output`), the largest first and to one
 *    size: every output above it is cut to it, those below stay whole (so a
 *    small result is never cut to make room for a large one).
 * When even that is not enough (system prompt, user messages, summaries and
 * outputs cut to their markers are over by themselves), the result says it
 * does not fit: the caller refuses rather than send it. Callers fit a context
 * once it is over its window, to its budget: the newest outputs are whole
 * while they fit, and once cut, the cut leaves room for the answer.
 */

import { isOpaqueMessage } from "../formats/opaque.js";
import type { ToolOutputKey } from "../messages/call-ids.js";
import { messageText } from "../messages/content.js";
import type { ChatMessage } from "../messages/types.js";
import { countMessageTokens, messageTokens } from "../tokens/count.js";
import {
  type CutFigures,
  cutMarker,
  cutToolOutput,
  isCutOutput,
  isMarkerOnly,
} from "./cut-output.js";
import { isPrunePlaceholder, namingOf, type OutputNaming, pruneToolOutputs } from "./prune.js";
import type { CutToolOutput, PrunedToolOutput } from "./types.js";

/** Rounds of cutting to a lower size when the cut outputs still count over the limit. */
const MAX_CUT_ROUNDS = 4;

export interface FitOptions {
  model: string;
  /** The most the messages may count (`countMessageTokens`, reply priming included). */
  limit: number;
  /**
   * Index of the first message the model has not seen: what follows the last assistant message
   * (default). Outputs before it are pruned, outputs from it on are cut.
   */
  unseenFrom?: number;
  /** Which call each output answers and how a marker names it (default: read from `messages`). */
  naming?: OutputNaming;
  /** How a cut marker names the whole output (default: as the placeholders name it, `naming`). */
  cutReference?: (key: ToolOutputKey) => string;
  /** The recall tool the agent has, named in the cut marker as a way to fetch the whole output. */
  recallTool?: string;
}

export interface FitResult {
  messages: ChatMessage[];
  tokens: number;
  /** Whether `tokens` is within the limit. */
  fits: boolean;
  /** Seen outputs replaced by placeholders. */
  pruned: PrunedToolOutput[];
  /** Unseen outputs cut to their head and tail. */
  cut: CutToolOutput[];
}

/** The index after the last assistant message: where what the model has not seen starts. */
export function unseenFromOf(messages: readonly ChatMessage[]): number {
  return messages.findLastIndex((message) => message.role === "assistant") + 1;
}

/** `messages` fitted to `options.limit` as the module says; the same array when they fit already. */
export function fitContext(messages: readonly ChatMessage[], options: FitOptions): FitResult {
  const { model, limit } = options;
  const tokens = countMessageTokens(messages, model);
  if (tokens <= limit) {
    return { messages: [...messages], tokens, fits: true, pruned: [], cut: [] };
  }
  const naming = options.naming ?? namingOf(messages);
  const unseenFrom = options.unseenFrom ?? unseenFromOf(messages);
  const pruned = pruneToolOutputs(messages, model, {
    from: 0,
    to: unseenFrom,
    needToSave: tokens - limit,
  });
  const afterPrune = tokens - pruned.saved;
  if (afterPrune <= limit) {
    return {
      messages: pruned.messages,
      tokens: afterPrune,
      fits: true,
      pruned: pruned.pruned,
      cut: [],
    };
  }
  const settings = { ...options, naming, unseenFrom };
  let cut = cutUnseen(pruned.messages, afterPrune, settings, false);
  // Outputs cut before (a view that holds them) are cut again only when nothing else is left.
  if (!cut.fits) cut = cutUnseen(pruned.messages, afterPrune, settings, true);
  return { ...cut, pruned: pruned.pruned };
}

/**
 * The tool outputs of `messages[range.from, range.to)`, which count `range.tokens` together, cut
 * to their head and tail, to one size, so that the range counts at most `options.limit`; `why`
 * ends the marker's "so ..." (the recent turns a small window keeps, `compact/recent-reads`).
 * Outputs cut before are left as they are; `fits` is false when that is not enough.
 */
export function cutOutputsWithin(
  messages: readonly ChatMessage[],
  range: { from: number; to: number; tokens: number },
  options: FitOptions & { naming: OutputNaming; why: string },
): Omit<FitResult, "pruned"> {
  return cutUnseen(
    messages,
    range.tokens,
    { ...options, unseenFrom: range.from, until: range.to },
    false,
  );
}

/** Step 2 of the module: cuts the unseen outputs of `messages` (counting `tokens`) to one size. */
function cutUnseen(
  messages: readonly ChatMessage[],
  tokens: number,
  options: FitOptions & {
    naming: OutputNaming;
    unseenFrom: number;
    /** One past the last output that may be cut (default: the end). */
    until?: number;
    /** How the marker ends its "so ..." (default: the context fits its window). */
    why?: string;
  },
  recut: boolean,
): Omit<FitResult, "pruned"> {
  const { model, limit, naming } = options;
  const candidates: Array<{ index: number; tokens: number }> = [];
  const until = options.until ?? messages.length;
  for (let index = options.unseenFrom; index < until; index++) {
    const message = messages[index];
    if (message?.role !== "tool" || isOpaqueMessage(message)) continue;
    const text = messageText(message);
    if (isPrunePlaceholder(text) || isMarkerOnly(text) || (!recut && isCutOutput(text))) continue;
    candidates.push({ index, tokens: messageTokens(message, model) });
  }
  candidates.sort((a, b) => b.tokens - a.tokens);
  const markerFor = (message: ChatMessage, index: number) => (figures: CutFigures) => {
    const key = naming.callOf(message, index);
    const reference = (options.cutReference ?? naming.reference)(key);
    const via =
      options.recallTool === undefined
        ? reference
        : `${reference} (the \`${options.recallTool}\` tool takes it as toolCallId)`;
    return cutMarker(key.toolName ?? "tool", via, figures, options.why);
  };

  let result = [...messages];
  let total = tokens;
  let cuts: CutToolOutput[] = [];
  let size = capFor(candidates, tokens - limit);
  for (let round = 0; round < MAX_CUT_ROUNDS && size !== undefined; round++) {
    result = [...messages];
    cuts = [];
    total = tokens;
    for (const candidate of candidates) {
      if (candidate.tokens <= size) break;
      const message = messages[candidate.index];
      if (message === undefined) continue;
      const marker = markerFor(message, candidate.index);
      // Below what its marker takes, an output keeps its marker alone: never dropped.
      const done =
        cutToolOutput(message, size, model, marker) ??
        cutToolOutput(message, candidate.tokens - 1, model, marker, { keepNothing: true });
      if (done === undefined) continue;
      const after = messageTokens(done.message, model);
      result[candidate.index] = done.message;
      total -= candidate.tokens - after;
      const key = naming.callOf(message, candidate.index);
      cuts.push({
        toolCallId: key.toolCallId,
        occurrence: key.occurrence,
        toolName: key.toolName ?? "tool",
        content: messageText(message),
        tokens: candidate.tokens,
        keptTokens: after,
        cutTokens: done.figures.cutTokens,
      });
    }
    if (total <= limit) break;
    // Over by what the joins and markers took beyond the estimate: a lower size for every cut one.
    const over = total - limit;
    const cutCount = Math.max(1, cuts.length);
    const lower = size - Math.ceil(over / cutCount);
    size = lower < 0 || lower === size ? undefined : lower;
  }
  return { messages: result, tokens: total, fits: total <= limit, cut: cuts };
}

/**
 * The one size every output above it is cut to so that `excess` tokens go: the outputs sorted
 * largest first, the highest size whose cuts add up to the excess (water filling). 0 when cutting
 * every output to nothing would not be enough; undefined when there is nothing to cut.
 */
function capFor(sorted: readonly { tokens: number }[], excess: number): number | undefined {
  if (sorted.length === 0) return undefined;
  let sum = 0;
  for (let k = 1; k <= sorted.length; k++) {
    sum += sorted[k - 1]?.tokens ?? 0;
    const size = Math.floor((sum - excess) / k);
    const next = sorted[k]?.tokens ?? 0;
    if (size >= next) return Math.max(0, size);
  }
  return 0;
}
