/**
 * @module billing/turn-bill
 * A session's bill: the model requests it served, each priced under the provider's prompt cache
 * with the rule the bench uses (`billing/prompt-cache`'s `priceRequest`), beside what sending the
 * whole history every turn would have cost under the same cache. A session does not keep every
 * request it served, so each turn is described by its size and the prefix an earlier request sent
 * unchanged: between compactions the context only grows at its end (the client's breakpoint on its
 * newest message, or automatic prefix caching, makes all of the previous request readable); a
 * compaction keeps only its stable prefix (system prompt, head, pinned messages).
 *
 * What the provider reported for a turn (its cached tokens, from the answer's usage) is what the
 * turn cost (measured); a turn without it is estimated under the cache model. The whole history's
 * side is always estimated. The sums are kept in integer tokens and priced at the end, so turns
 * rolled up into one entry (`rollUpTurns`, a session's bounded turn log) bill exactly as before.
 */

import { cacheLifetimeMs, isCacheCold } from "../models/cache-lifetime.js";
import type { CachePricing } from "./prompt-cache.js";
import { priceRequest } from "./prompt-cache.js";

/** What a provider reported of one prompt: every input token, and those read from and written to its cache. */
export interface ProviderUsage {
  /** Every token of the prompt: uncached, read from the cache and written to it. */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Why the provider's cache missed, when it said (Anthropic's `diagnostics.cache_miss_reason`). */
  cacheMiss?: CacheMiss | undefined;
}

/** A provider's account of a cache miss: its reason (`messages_changed`, …) and the tokens it missed. */
export interface CacheMiss {
  reason: string;
  /** Tokens the cache would have served had the prefix matched; null when the provider gave none. */
  missedTokens: number | null;
}

/** One model request a session served. */
export interface ServedTurn {
  /** Tokens of the context sent. */
  tokens: number;
  /** Of them, the prefix an earlier request sent unchanged. */
  reusedTokens: number;
  /** Tokens of the whole history at that turn. */
  wholeTokens: number;
  /** Of them, the prefix the previous turn's whole history sent unchanged. */
  wholeReusedTokens: number;
  /** What the provider reported for it, when the caller passed its usage on. */
  usage?: ProviderUsage | undefined;
  /**
   * When it was sent (ms since the epoch). A turn sent longer after the previous one than the
   * provider's cache lifetime (`models/cache-lifetime`) finds the cache cold: it reads nothing.
   */
  at?: number | undefined;
}

/** A bill in the catalog's dollars, when the model has an input price, and in uncached input tokens. */
export interface Bill {
  /** Uncached input tokens' worth: read × cacheRead + written × cacheWrite + uncached. */
  cost: number;
  /** `cost` at the model's input price; null when the catalog has none. */
  dollars: number | null;
  readTokens: number;
  writtenTokens: number;
}

/**
 * Where a figure comes from: `usage` when the provider reported every turn's usage (measured),
 * `estimated` when none did (the cache model on the contexts' sizes), `mixed` between.
 */
export type BillBasis = "usage" | "estimated" | "mixed";

export interface SessionBill {
  /** The model whose prices these are. */
  model: string;
  turns: number;
  /**
   * The served turns: each priced as the provider counted it when its usage was reported
   * (measured), else under the cache model from its size and the prefix it kept (estimated).
   */
  condense: Bill & { busts: number };
  /** The whole history sent every turn of the same session, priced under the same cache (estimated). */
  wholeHistory: Bill;
  /** `condense.cost ÷ wholeHistory.cost`; null before any turn. */
  ratio: number | null;
  /** Turns whose usage the provider reported: `condense` prices them as it counted them. */
  measuredTurns: number;
  /** What `condense` rests on: see `BillBasis`. */
  basis: BillBasis;
  /** Turns that came after the cache's lifetime had passed: billed as a full write, not as busts. */
  coldTurns: number;
  /** The turns whose usage was reported, priced as the provider counted them. */
  reported: Bill & { turns: number; inputTokens: number };
  /** Per turn (or rollup), in order: both bills so far (cumulative costs) and what the turn's rests on, for a chart. */
  running: Array<{ condense: number; wholeHistory: number; basis: "usage" | "estimated" }>;
}

/** Tokens as a cache bills them. Kept as integer sums, so a bill is the same however its turns are grouped. */
interface CacheTokens {
  read: number;
  written: number;
  uncached: number;
}

/** What a run of turns adds to a bill, before prices: integer sums only. */
export interface TurnTotals {
  turns: number;
  measuredTurns: number;
  busts: number;
  coldTurns: number;
  condense: CacheTokens;
  whole: CacheTokens;
  reported: CacheTokens & { turns: number; inputTokens: number };
}

/**
 * Turns rolled up into one entry (a session keeps its turn log within a bound): their totals, and
 * the last turn's size and time, which the next turn's bust and cold cache are judged against.
 */
export interface RolledTurns {
  rolled: TurnTotals;
  tokens: number;
  at?: number | undefined;
}

/** What a bill is made of, in order: single turns and rollups of them. */
export type TurnEntry = ServedTurn | RolledTurns;

function dollars(cost: number, pricing: CachePricing): number | null {
  return pricing.inputPerMillion > 0 ? (cost * pricing.inputPerMillion) / 1_000_000 : null;
}

function costOf(pricing: CachePricing, tokens: CacheTokens): number {
  return pricing.cacheRead * tokens.read + pricing.cacheWrite * tokens.written + tokens.uncached;
}

/** A turn's price under the cache: its reused prefix is read, the rest written at its end (breakpoints) or sent. */
function priceTurn(pricing: CachePricing, tokens: number, reused: number): CacheTokens {
  return priceRequest(pricing, {
    tokens,
    hitTokens: Math.min(reused, tokens),
    // The client marks its newest message, so the whole request is written for the next turn.
    markedTokens: tokens >= pricing.minTokens ? tokens : 0,
  });
}

function addTokens(into: CacheTokens, add: CacheTokens): void {
  into.read += add.read;
  into.written += add.written;
  into.uncached += add.uncached;
}

function emptyTotals(): TurnTotals {
  return {
    turns: 0,
    measuredTurns: 0,
    busts: 0,
    coldTurns: 0,
    condense: { read: 0, written: 0, uncached: 0 },
    whole: { read: 0, written: 0, uncached: 0 },
    reported: { read: 0, written: 0, uncached: 0, turns: 0, inputTokens: 0 },
  };
}

function addTotals(into: TurnTotals, add: TurnTotals): void {
  into.turns += add.turns;
  into.measuredTurns += add.measuredTurns;
  into.busts += add.busts;
  into.coldTurns += add.coldTurns;
  addTokens(into.condense, add.condense);
  addTokens(into.whole, add.whole);
  addTokens(into.reported, add.reported);
  into.reported.turns += add.reported.turns;
  into.reported.inputTokens += add.reported.inputTokens;
}

/** The last turn seen: what the next one's bust and cold cache are judged against. */
interface Previous {
  tokens: number;
  at: number | undefined;
}

/** One turn's totals after `previous`. */
function turnTotals(pricing: CachePricing, turn: ServedTurn, previous: Previous): TurnTotals {
  const totals = emptyTotals();
  const cold = isCacheCold(
    previous.at,
    turn.at ?? previous.at ?? 0,
    cacheLifetimeMs(pricing.caching),
  );
  totals.turns = 1;
  if (cold) totals.coldTurns = 1;
  if (!cold && previous.tokens >= pricing.minTokens && turn.reusedTokens < previous.tokens) {
    totals.busts = 1;
  }
  addTokens(totals.whole, priceTurn(pricing, turn.wholeTokens, cold ? 0 : turn.wholeReusedTokens));
  if (turn.usage === undefined) {
    addTokens(totals.condense, priceTurn(pricing, turn.tokens, cold ? 0 : turn.reusedTokens));
    return totals;
  }
  const { inputTokens, cacheReadTokens, cacheWriteTokens } = turn.usage;
  const measured = {
    read: cacheReadTokens,
    written: cacheWriteTokens,
    uncached: Math.max(0, inputTokens - cacheReadTokens - cacheWriteTokens),
  };
  totals.measuredTurns = 1;
  addTokens(totals.condense, measured);
  addTokens(totals.reported, measured);
  totals.reported.turns = 1;
  totals.reported.inputTokens = inputTokens;
  return totals;
}

function isRolled(entry: TurnEntry): entry is RolledTurns {
  return "rolled" in entry;
}

/** Folds `entries` after `previous`, calling `step` with the totals so far after each. */
function foldEntries(
  pricing: CachePricing,
  entries: readonly TurnEntry[],
  previous: Previous,
  step?: (totals: TurnTotals, entry: TurnTotals) => void,
): { totals: TurnTotals; last: Previous } {
  const totals = emptyTotals();
  let last = previous;
  for (const entry of entries) {
    const added = isRolled(entry) ? entry.rolled : turnTotals(pricing, entry, last);
    addTotals(totals, added);
    last = { tokens: entry.tokens, at: entry.at ?? last.at };
    step?.(totals, added);
  }
  return { totals, last };
}

/**
 * `turns` (in order, after `before`: the entry just before them, when there is one) as one entry
 * whose bill is theirs exactly: a session rolls up old turns to keep its turn log within a bound.
 */
export function rollUpTurns(
  pricing: CachePricing,
  turns: readonly TurnEntry[],
  before?: { tokens: number; at?: number | undefined },
): RolledTurns {
  const { totals, last } = foldEntries(pricing, turns, {
    tokens: before?.tokens ?? 0,
    at: before?.at,
  });
  return { rolled: totals, tokens: last.tokens, at: last.at };
}

/** The bill of `entries`, in order, under `pricing`. */
export function billTurns(pricing: CachePricing, entries: readonly TurnEntry[]): SessionBill {
  const running: SessionBill["running"] = [];
  const { totals } = foldEntries(pricing, entries, { tokens: 0, at: undefined }, (sum, added) => {
    running.push({
      condense: costOf(pricing, sum.condense),
      wholeHistory: costOf(pricing, sum.whole),
      basis: added.measuredTurns === added.turns ? "usage" : "estimated",
    });
  });
  const condenseCost = costOf(pricing, totals.condense);
  const wholeCost = costOf(pricing, totals.whole);
  const reportedCost = costOf(pricing, totals.reported);
  return {
    model: pricing.model,
    turns: totals.turns,
    condense: {
      cost: condenseCost,
      dollars: dollars(condenseCost, pricing),
      readTokens: totals.condense.read,
      writtenTokens: totals.condense.written,
      busts: totals.busts,
    },
    wholeHistory: {
      cost: wholeCost,
      dollars: dollars(wholeCost, pricing),
      readTokens: totals.whole.read,
      writtenTokens: totals.whole.written,
    },
    ratio: wholeCost > 0 ? condenseCost / wholeCost : null,
    measuredTurns: totals.measuredTurns,
    basis:
      totals.measuredTurns === totals.turns
        ? totals.turns === 0
          ? "estimated"
          : "usage"
        : totals.measuredTurns === 0
          ? "estimated"
          : "mixed",
    coldTurns: totals.coldTurns,
    reported: {
      cost: reportedCost,
      dollars: dollars(reportedCost, pricing),
      readTokens: totals.reported.read,
      writtenTokens: totals.reported.written,
      turns: totals.reported.turns,
      inputTokens: totals.reported.inputTokens,
    },
    running,
  };
}
