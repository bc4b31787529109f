/**
 * @module session/context/served-turns
 * The model requests a session served, and its bill (issue 19). Each time a context is served for
 * a request (`GET /context`, a gateway turn) a turn is recorded: its size, the prefix an earlier
 * request sent unchanged (all of the previous one between compactions, as the context only grows
 * at its end; the part a compaction kept after one; nothing in a new generation) and the whole
 * history's size beside it. The same request served again (a retry, a second fetch with nothing
 * appended) replaces its turn. The provider's usage of the answer (its cached tokens) joins the
 * turn it answered, from the gateway or an append. The turn also adds what it read to the cost
 * policy's state (`cache-state`).
 *
 * The bill prices the turns with core's `billTurns`, the bench's cache model, under the session
 * model's catalog prices: Condense's turns against the whole history sent every turn. A turn whose
 * usage the provider reported is priced as it counted it (measured); the others are estimated.
 *
 * The log stays within a bound (`TURN_LOG`): every `every` turns, all but the newest `keep` are
 * rolled up, one row for each stretch between compactions (core's `rollUpTurns`, integer sums, so
 * the bill is the same to the last bit), priced under the session's model then. So the log grows
 * with the compaction history, not with the turns; the chart keeps one point per rolled stretch.
 */

import {
  billTurns,
  cachedSummaryCostTokens,
  cachePricingOf,
  modelPricing,
  type ProviderUsage,
  rollUpTurns,
  type SessionBill,
  type TurnEntry,
  type TurnTotals,
} from "@condense/core";
import { z } from "zod";
import type { CompactionsResponseBody, SessionBillBody } from "../../api/schemas";
import { afterTurn, cacheStateOf, saveCacheState } from "../store/cache-state";
import { readSession, type SessionRow, transcriptTotals } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { readViewState, type ViewState } from "../store/view-state";
import { contextSize } from "./context-measure";
import { currentGeneration, type Generation } from "./generations";

/** The turn's columns as the row's camelCase fields. */
const TURN_COLUMNS = `id, at, generation, last_seq AS lastSeq, compaction_id AS compactionId, tokens,
  reused_tokens AS reusedTokens, whole_tokens AS wholeTokens, whole_reused_tokens AS wholeReusedTokens,
  input_tokens AS inputTokens, cache_read_tokens AS cacheReadTokens,
  cache_write_tokens AS cacheWriteTokens, rolled, cache_miss_reason AS cacheMissReason,
  cache_missed_tokens AS cacheMissedTokens`;

type TurnRow = {
  id: number;
  at: number;
  generation: number;
  lastSeq: number;
  compactionId: number;
  tokens: number;
  reusedTokens: number;
  wholeTokens: number;
  wholeReusedTokens: number;
  inputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  /** On a rollup row: the JSON of its turns' `TurnTotals`; NULL on a turn. */
  rolled: string | null;
  cacheMissReason: string | null;
  cacheMissedTokens: number | null;
};

/** How long the log grows before older turns are rolled up, and how many of the newest stay turns. */
export const TURN_LOG = { every: 100, keep: 200 } as const;

const cacheTokens = z.object({ read: z.number(), written: z.number(), uncached: z.number() });
/** A rollup row's sums as stored (our own JSON, read back checked rather than cast). */
const TurnTotalsJson = z.object({
  turns: z.number(),
  measuredTurns: z.number(),
  busts: z.number(),
  coldTurns: z.number(),
  condense: cacheTokens,
  whole: cacheTokens,
  reported: cacheTokens.extend({ turns: z.number(), inputTokens: z.number() }),
}) satisfies z.ZodType<TurnTotals>;

/** A context served for a model request. */
export interface TurnServed {
  /** The session's last seq the context ends at. */
  lastSeq: number;
  /** Engine tokens sent, the pinned messages (and memory block) included. */
  tokens: number;
  /** Of them, the pinned messages' and the memory block's. */
  pinnedTokens: number;
  model: string;
}

function latestTurn(sql: SqlStorage): TurnRow | undefined {
  return sql
    .exec<TurnRow>(
      `SELECT ${TURN_COLUMNS} FROM condense_turns WHERE rolled IS NULL ORDER BY id DESC LIMIT 1`,
    )
    .toArray()[0];
}

/** What a turn is recorded against: the generation, the committed view and the latest turn. */
interface TurnPlace {
  generation: Generation;
  view: ViewState | undefined;
  previous: TurnRow | undefined;
}

function turnPlace(sql: SqlStorage): TurnPlace {
  return {
    generation: currentGeneration(sql),
    view: readViewState(sql),
    previous: latestTurn(sql),
  };
}

/**
 * Records `turn` (see the module) and adds what it read to the cost policy's state, unless it is
 * `estimated`: a request the client made with a history of its own (an answer appended with no
 * context fetched) tells the policy nothing about what the session's context was read for.
 * `place`: what the caller read of it in the same transaction, nothing written since.
 */
export function recordServedTurn(
  scope: SessionScope,
  session: SessionRow,
  turn: TurnServed,
  now: number,
  estimated = false,
  place: TurnPlace = turnPlace(scope.sql),
): void {
  const { sql, store } = scope;
  const { generation, previous } = place;
  const compactionId = place.view?.compactionId ?? 0;
  const totals = transcriptTotals(sql);
  const whole =
    store.tokensAfter(generation.firstSeq - 1, totals).tokens -
    store.tokensAfter(turn.lastSeq, totals).tokens;
  const sameGeneration = previous?.generation === generation.generation;
  const again = previous !== undefined && sameGeneration && previous.lastSeq === turn.lastSeq;
  // The prefix the cache may hold: the previous request whole while no compaction came between,
  // else what the last compaction kept from its start (the pinned messages after the system prompt).
  const kept = (cacheStateOf(session)?.stableTokens ?? 0) + turn.pinnedTokens;
  const reused = !sameGeneration
    ? 0
    : again
      ? previous.compactionId === compactionId
        ? Math.min(previous.reusedTokens, turn.tokens)
        : Math.min(kept, turn.tokens)
      : previous?.compactionId === compactionId
        ? Math.min(previous.tokens, turn.tokens)
        : Math.min(kept, turn.tokens);
  if (again) {
    sql.exec(
      "UPDATE condense_turns SET at = ?, compaction_id = ?, model = ?, tokens = ?, reused_tokens = ?, whole_tokens = ? WHERE id = ?",
      now,
      compactionId,
      turn.model,
      turn.tokens,
      reused,
      whole,
      previous.id,
    );
    return;
  }
  const { id } = sql
    .exec<{ id: number }>(
      `INSERT INTO condense_turns (at, generation, last_seq, compaction_id, model, tokens, reused_tokens,
       whole_tokens, whole_reused_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      now,
      generation.generation,
      turn.lastSeq,
      compactionId,
      turn.model,
      turn.tokens,
      reused,
      whole,
      sameGeneration ? Math.min(previous.wholeTokens, whole) : 0,
    )
    .one();
  // Checked every `every` turns only: the gateway's turn is a hot path.
  if (id % TURN_LOG.every === 0) rollUpTurnLog(sql, turn.model, TURN_LOG.keep);
  const state = cacheStateOf(session);
  if (state !== undefined && !estimated)
    saveCacheState(sql, afterTurn(state, turn.tokens - turn.pinnedTokens));
}

/**
 * Bills the answers of an append through `/messages` that no fetched context served (the client
 * keeps its own history and only reports it): before each answer is stored, call `answer` with its
 * seq. When no turn was recorded since the answer before it, the turn that produced it is recorded
 * as the context the session held then (its committed view and every message after it), estimated
 * like any turn without usage. The gateway's turns are always served, so its appends skip this.
 */
export function unservedAnswerBilling(
  scope: SessionScope,
  model: string,
  /**
   * The session's pinned messages' tokens, asked for only when an answer is billed: most appends
   * bill none (a user's or a tool's message, or an answer a fetched context served), and pricing
   * them took a count of every pinned message on every append.
   */
  pinnedTokens: () => number,
): (seq: number, now: number) => void {
  const { sql } = scope;
  let previousAnswer: number | undefined;
  let pinned: number | undefined;
  return (seq, now) => {
    previousAnswer ??=
      sql
        .exec<{ seq: number }>(
          "SELECT seq FROM condense_transcript WHERE role = 'assistant' AND seq < ? ORDER BY seq DESC LIMIT 1",
          seq,
        )
        .toArray()[0]?.seq ?? 0;
    const latest = latestTurn(sql);
    const generation = currentGeneration(sql);
    const served =
      latest !== undefined &&
      latest.generation === generation.generation &&
      latest.lastSeq >= previousAnswer;
    previousAnswer = seq;
    const session = served ? undefined : readSession(sql);
    if (session === undefined) return;
    pinned ??= pinnedTokens();
    const view = readViewState(sql);
    recordServedTurn(
      scope,
      session,
      {
        lastSeq: seq - 1,
        tokens: contextSize(scope, view).tokens + pinned,
        pinnedTokens: pinned,
        model,
      },
      now,
      true,
      { generation, view, previous: latest },
    );
  };
}

/**
 * Records the provider's usage on the turn it answered: the latest turn of `generation` ending at
 * `lastSeq` (the gateway's turn), or with `generation` undefined the latest turn when it ends at
 * `lastSeq` (an append's usage is for the context the client last fetched). False when no turn is
 * there, or it has a usage already. `answerId`: the provider's id of the answer, kept when the
 * request opted in to cache diagnostics (the next request names it: {@link previousAnswerId}).
 */
export function recordTurnUsage(
  sql: SqlStorage,
  at: { generation?: number; lastSeq: number },
  usage: ProviderUsage,
  answerId?: string,
): boolean {
  const turn =
    at.generation === undefined
      ? latestTurn(sql)
      : sql
          .exec<TurnRow>(
            `SELECT ${TURN_COLUMNS} FROM condense_turns
             WHERE generation = ? AND last_seq = ? AND rolled IS NULL ORDER BY id DESC LIMIT 1`,
            at.generation,
            at.lastSeq,
          )
          .toArray()[0];
  if (turn === undefined || turn.lastSeq !== at.lastSeq || turn.inputTokens !== null) {
    return false;
  }
  sql.exec(
    `UPDATE condense_turns SET input_tokens = ?, cache_read_tokens = ?, cache_write_tokens = ?,
       cache_miss_reason = ?, cache_missed_tokens = ?, answer_id = ? WHERE id = ?`,
    usage.inputTokens,
    usage.cacheReadTokens,
    usage.cacheWriteTokens,
    usage.cacheMiss?.reason ?? null,
    usage.cacheMiss?.missedTokens ?? null,
    answerId ?? null,
    turn.id,
  );
  return true;
}

/**
 * The id of the last answer whose request opted in to cache diagnostics (Anthropic's
 * `previous_message_id`), or null when none did yet: one row, read backwards by key.
 */
export function previousAnswerId(sql: SqlStorage): string | null {
  return (
    sql
      .exec<{ answerId: string }>(
        "SELECT answer_id AS answerId FROM condense_turns WHERE answer_id IS NOT NULL ORDER BY id DESC LIMIT 1",
      )
      .toArray()[0]?.answerId ?? null
  );
}

function turnRows(sql: SqlStorage): TurnRow[] {
  return sql.exec<TurnRow>(`SELECT ${TURN_COLUMNS} FROM condense_turns ORDER BY id`).toArray();
}

/** A row as the bill takes it: a turn, or the turns it rolls up. */
function entryOf(row: TurnRow): TurnEntry {
  if (row.rolled !== null) {
    return { rolled: TurnTotalsJson.parse(JSON.parse(row.rolled)), tokens: row.tokens, at: row.at };
  }
  return {
    // A turn after the cache's lifetime finds it cold: billed as a full write (core `billTurns`).
    at: row.at,
    tokens: row.tokens,
    reusedTokens: row.reusedTokens,
    wholeTokens: row.wholeTokens,
    wholeReusedTokens: row.wholeReusedTokens,
    usage:
      row.inputTokens === null
        ? undefined
        : {
            inputTokens: row.inputTokens,
            cacheReadTokens: row.cacheReadTokens ?? 0,
            cacheWriteTokens: row.cacheWriteTokens ?? 0,
          },
  };
}

/**
 * Rolls up every row but the newest `keep` turns, one row for each stretch of rows between
 * compactions (the same generation and compaction), priced under `model` (see the module). A
 * stretch already rolled up is merged with the rows after it in the same stretch.
 */
export function rollUpTurnLog(sql: SqlStorage, model: string, keep: number): void {
  const newest = sql
    .exec<{ id: number }>(
      "SELECT id FROM condense_turns WHERE rolled IS NULL ORDER BY id DESC LIMIT 1 OFFSET ?",
      Math.max(0, keep - 1),
    )
    .toArray()[0];
  if (newest === undefined) return;
  const rows = sql
    .exec<TurnRow>(`SELECT ${TURN_COLUMNS} FROM condense_turns WHERE id < ? ORDER BY id`, newest.id)
    .toArray();
  const pricing = cachePricingOf(modelPricing(model), model);
  let before: TurnRow | undefined;
  let start = 0;
  while (start < rows.length) {
    const first = rows[start] as TurnRow;
    let end = start + 1;
    while (
      end < rows.length &&
      rows[end]?.generation === first.generation &&
      rows[end]?.compactionId === first.compactionId
    ) {
      end++;
    }
    const stretch = rows.slice(start, end);
    const last = stretch.at(-1) as TurnRow;
    if (stretch.length > 1 || last.rolled === null) {
      const rolled = rollUpTurns(
        pricing,
        stretch.map(entryOf),
        before === undefined ? undefined : { tokens: before.tokens, at: before.at },
      );
      sql.exec("DELETE FROM condense_turns WHERE id >= ? AND id <= ?", first.id, last.id);
      // The row takes its last turn's id, so the log keeps its order.
      sql.exec(
        `INSERT INTO condense_turns (id, at, generation, last_seq, compaction_id, model, tokens,
           reused_tokens, whole_tokens, whole_reused_tokens, rolled) VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?)`,
        last.id,
        rolled.at ?? last.at,
        last.generation,
        last.lastSeq,
        last.compactionId,
        model,
        rolled.tokens,
        JSON.stringify(rolled.rolled),
      );
    }
    before = last;
    start = end;
  }
}

/** The session's bill under `model`'s catalog prices (see the module). */
export function sessionBill(sql: SqlStorage, model: string, rows = turnRows(sql)): SessionBill {
  return billTurns(cachePricingOf(modelPricing(model), model), rows.map(entryOf));
}

/** The bill and, per turn, both bills so far, as `/compactions` reports them. */
export function billWithSeries(
  sql: SqlStorage,
  model: string,
): { bill: SessionBillBody; costSeries: CompactionsResponseBody["costSeries"] } {
  const rows = turnRows(sql);
  const bill = sessionBill(sql, model, rows);
  return {
    bill: billBody(bill, summariesBill(sql, model)),
    costSeries: bill.running.map((point, index) => ({
      lastSeq: rows[index]?.lastSeq ?? 0,
      costTokens: point.condense,
      wholeHistoryCostTokens: point.wholeHistory,
      basis: point.basis,
      cacheMiss:
        rows[index]?.cacheMissReason == null
          ? null
          : {
              reason: rows[index]?.cacheMissReason ?? "",
              missedTokens: rows[index]?.cacheMissedTokens ?? null,
            },
    })),
  };
}

/** The session's bill as the API reports it (status, `/compactions`). */
export function sessionBillBody(sql: SqlStorage, model: string): SessionBillBody {
  return billBody(sessionBill(sql, model), summariesBill(sql, model));
}

/** The summaries through the cache the compactions recorded (`summary_usage`), priced under `model`. */
function summariesBill(sql: SqlStorage, model: string): SessionBillBody["summaries"] {
  const totals = {
    count: 0,
    inputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
  };
  for (const row of sql.exec<{ usage: string }>(
    "SELECT summary_usage AS usage FROM condense_compactions WHERE summary_usage IS NOT NULL",
  )) {
    const usage = JSON.parse(row.usage) as Partial<typeof totals>;
    totals.count += 1;
    totals.inputTokens += usage.inputTokens ?? 0;
    totals.cacheReadTokens += usage.cacheReadTokens ?? 0;
    totals.cacheWriteTokens += usage.cacheWriteTokens ?? 0;
    totals.outputTokens += usage.outputTokens ?? 0;
  }
  const pricing = modelPricing(model);
  const uncached = Math.max(
    0,
    totals.inputTokens - totals.cacheReadTokens - totals.cacheWriteTokens,
  );
  // Written tokens at the write price join the uncached input: both are new to the cache.
  const costTokens = cachedSummaryCostTokens(
    {
      promptTokens: totals.cacheReadTokens,
      instructionTokens: uncached + totals.cacheWriteTokens * pricing.cacheWrite,
      outputTokens: totals.outputTokens,
    },
    pricing,
  );
  const price = pricing.inputPerMillion;
  return {
    ...totals,
    costTokens,
    dollars: price === undefined ? null : (costTokens * price) / 1e6,
  };
}

function billBody(bill: SessionBill, summaries: SessionBillBody["summaries"]): SessionBillBody {
  const { reported } = bill;
  return {
    model: bill.model,
    turns: bill.turns,
    dollars: bill.condense.dollars,
    wholeHistoryDollars: bill.wholeHistory.dollars,
    ratio: bill.ratio,
    costTokens: bill.condense.cost,
    wholeHistoryCostTokens: bill.wholeHistory.cost,
    cacheBusts: bill.condense.busts,
    coldTurns: bill.coldTurns,
    basis: bill.basis,
    measuredTurns: bill.measuredTurns,
    cacheReadTokens: bill.condense.readTokens,
    cacheWriteTokens: bill.condense.writtenTokens,
    reported: {
      turns: reported.turns,
      inputTokens: reported.inputTokens,
      cacheReadTokens: reported.readTokens,
      cacheWriteTokens: reported.writtenTokens,
      dollars: reported.dollars,
    },
    summaries,
  };
}
