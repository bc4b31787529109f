/**
 * @module bench/cost/replay-record
 * What the cost bench keeps of one transcript's replay at one window: the replay as each pricing's
 * model and each policy's bill (read by the report and by the summaries' pricing).
 */

import type { PolicyBill } from "./bills.ts";

/** One replay of a transcript, its session running as one pricing's model. */
export interface PricedReplay {
  /** The model the session ran as, and whose tokenizer counts its bills (the pricing's). */
  model: string;
  /** The whole history's tokens at the last turn, counted for `model`. */
  wholeTokens: number;
  generations: string[];
  compactions: Array<{
    tier: number;
    tokensBefore: number;
    tokensAfter: number;
    summaryTokens: number;
  }>;
  replayMs: number;
}

export interface ReplayRecord {
  transcript: string;
  window: number;
  turns: number;
  /**
   * By pricing name: the replay as that pricing's model, so the cost policy decides at the prices
   * it is billed at (one replay as gpt-4o for every pricing decided at gpt-4o's).
   */
  replays: Record<string, PricedReplay>;
  /** By pricing name, then policy (`condense`, `whole history`, `truncate-oldest`, `compact-at-95`). */
  bills: Record<string, Record<string, PolicyBill>>;
}
