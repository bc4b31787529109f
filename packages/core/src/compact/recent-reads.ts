/**
 * @module compact/recent-reads
 * Recent reads stay: the tool outputs of the model's last few turns (a file it just read, the run
 * it just made) are what it is working from, so a compaction keeps them whole in the tail, as it
 * keeps the newest messages (`compact/protected-tail`), within a share of what the compaction aims
 * for. A turn that would take the kept part over that share is left to the summary, with every
 * turn before it; so is everything when nothing older can make room (the engine then compacts
 * again without them). The messages between the turns (a reply, the user's next request) come
 * with them; the previous summary never does.
 *
 * Where the cost policy's limit is its floor (small windows, `recentTurnTokens`), each of those
 * turns keeps at most half the tail by itself, its outputs cut to head and tail past it
 * (`compact/cut-output`, with a marker saying how to fetch the whole): a turn the share would
 * have sent to the summary whole kept none of its lines there, and the model was reading them.
 */

import type { ChatMessage } from "../messages/types.js";

/**
 * The assistant turns with tool calls whose outputs a compaction keeps: the model's last and the
 * one before (on the corpus a third costs more in cache busts, at 32k and 128k, than it keeps).
 */
export const RECENT_READ_TURNS = 2;
/** The share of the compaction's aim the recent turns may take, the newest messages included. */
export const RECENT_READ_SHARE = 0.5;

/**
 * The index from which the recent turns are kept: the start of the oldest of the last
 * `RECENT_READ_TURNS` turns with tool calls (an assistant message and its results, with the
 * messages between it and the next such turn) that fits, with everything after it, in `budget`
 * tokens, never at or before `floor` (the previous summary, which a compaction folds in);
 * `newestFrom` when none does.
 */
export function recentReadsFrom(
  messages: readonly ChatMessage[],
  tokens: readonly number[],
  newestFrom: number,
  budget: number,
  floor = -1,
): number {
  let from = newestFrom;
  let used = 0;
  for (let i = newestFrom; i < messages.length; i++) used += tokens[i] ?? 0;
  for (const turn of recentTurns(messages, newestFrom, floor)) {
    let cost = 0;
    for (let i = turn.from; i < turn.to; i++) cost += tokens[i] ?? 0;
    if (used + cost > budget) break;
    used += cost;
    from = turn.from;
  }
  return from;
}

/** One turn of `recentTurns`: messages `[from, to)`. */
export interface RecentTurn {
  from: number;
  to: number;
}

/**
 * The last `RECENT_READ_TURNS` turns with tool calls before `newestFrom`, newest first: each an
 * assistant message with tool calls, its results and the messages up to the next such turn (the
 * newest up to `newestFrom`), never at or before `floor` (the previous summary).
 */
export function recentTurns(
  messages: readonly ChatMessage[],
  newestFrom: number,
  floor = -1,
): RecentTurn[] {
  const turns: RecentTurn[] = [];
  let to = newestFrom;
  for (let start = newestFrom - 1; start > floor && turns.length < RECENT_READ_TURNS; start--) {
    const message = messages[start];
    if (message?.role !== "assistant" || (message.tool_calls?.length ?? 0) === 0) continue;
    turns.push({ from: start, to });
    to = start;
  }
  return turns;
}
