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
 * model's catalog prices: Condense's turns against the whole history sent every turn.
 */

import {
  billTurns,
  cachePricingOf,
  modelPricing,
  type ProviderUsage,
  type SessionBill,
} from "@condense/core";
import type { CompactionsResponseBody, SessionBillBody } from "../../api/schemas";
import { afterTurn, cacheStateOf, saveCacheState } from "../store/cache-state";
import type { SessionRow } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { readViewState } from "../store/view-state";
import { currentGeneration } from "./generations";

/** The turn's columns as the row's camelCase fields. */
const TURN_COLUMNS = `id, at, generation, last_seq AS lastSeq, compaction_id AS compactionId, tokens,
  reused_tokens AS reusedTokens, whole_tokens AS wholeTokens, whole_reused_tokens AS wholeReusedTokens,
  input_tokens AS inputTokens, cache_read_tokens AS cacheReadTokens,
  cache_write_tokens AS cacheWriteTokens`;

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
};

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
    .exec<TurnRow>(`SELECT ${TURN_COLUMNS} FROM condense_turns ORDER BY id DESC LIMIT 1`)
    .toArray()[0];
}

/** Records `turn` (see the module) and adds what it read to the cost policy's state. */
export function recordServedTurn(
  scope: SessionScope,
  session: SessionRow,
  turn: TurnServed,
  now: number,
): void {
  const { sql, store } = scope;
  const generation = currentGeneration(sql);
  const compactionId = readViewState(sql)?.compactionId ?? 0;
  const whole =
    store.tokensAfter(generation.firstSeq - 1).tokens - store.tokensAfter(turn.lastSeq).tokens;
  const previous = latestTurn(sql);
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
  sql.exec(
    `INSERT INTO condense_turns (at, generation, last_seq, compaction_id, model, tokens, reused_tokens,
       whole_tokens, whole_reused_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    now,
    generation.generation,
    turn.lastSeq,
    compactionId,
    turn.model,
    turn.tokens,
    reused,
    whole,
    sameGeneration ? Math.min(previous.wholeTokens, whole) : 0,
  );
  const state = cacheStateOf(session);
  if (state !== undefined) saveCacheState(sql, afterTurn(state, turn.tokens - turn.pinnedTokens));
}

/**
 * Records the provider's usage on the turn it answered: the latest turn of `generation` ending at
 * `lastSeq` (the gateway's turn), or with `generation` undefined the latest turn when it ends at
 * `lastSeq` (an append's usage is for the context the client last fetched). False when no turn is
 * there, or it has a usage already.
 */
export function recordTurnUsage(
  sql: SqlStorage,
  at: { generation?: number; lastSeq: number },
  usage: ProviderUsage,
): boolean {
  const turn =
    at.generation === undefined
      ? latestTurn(sql)
      : sql
          .exec<TurnRow>(
            `SELECT ${TURN_COLUMNS} FROM condense_turns WHERE generation = ? AND last_seq = ? ORDER BY id DESC LIMIT 1`,
            at.generation,
            at.lastSeq,
          )
          .toArray()[0];
  if (turn === undefined || turn.lastSeq !== at.lastSeq || turn.inputTokens !== null) {
    return false;
  }
  sql.exec(
    "UPDATE condense_turns SET input_tokens = ?, cache_read_tokens = ?, cache_write_tokens = ? WHERE id = ?",
    usage.inputTokens,
    usage.cacheReadTokens,
    usage.cacheWriteTokens,
    turn.id,
  );
  return true;
}

function turnRows(sql: SqlStorage): TurnRow[] {
  return sql.exec<TurnRow>(`SELECT ${TURN_COLUMNS} FROM condense_turns ORDER BY id`).toArray();
}

/** The session's bill under `model`'s catalog prices (see the module). */
export function sessionBill(sql: SqlStorage, model: string, rows = turnRows(sql)): SessionBill {
  return billTurns(
    cachePricingOf(modelPricing(model), model),
    rows.map((row) => ({
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
    })),
  );
}

/** The bill and, per turn, both bills so far, as `/compactions` reports them. */
export function billWithSeries(
  sql: SqlStorage,
  model: string,
): { bill: SessionBillBody; costSeries: CompactionsResponseBody["costSeries"] } {
  const rows = turnRows(sql);
  const bill = sessionBill(sql, model, rows);
  return {
    bill: billBody(bill),
    costSeries: bill.running.map((point, index) => ({
      lastSeq: rows[index]?.lastSeq ?? 0,
      costTokens: point.condense,
      wholeHistoryCostTokens: point.wholeHistory,
    })),
  };
}

/** The session's bill as the API reports it (status, `/compactions`). */
export function sessionBillBody(sql: SqlStorage, model: string): SessionBillBody {
  return billBody(sessionBill(sql, model));
}

function billBody(bill: SessionBill): SessionBillBody {
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
    cacheReadTokens: bill.condense.readTokens,
    cacheWriteTokens: bill.condense.writtenTokens,
    reported: {
      turns: reported.turns,
      inputTokens: reported.inputTokens,
      cacheReadTokens: reported.readTokens,
      cacheWriteTokens: reported.writtenTokens,
      dollars: reported.dollars,
    },
  };
}
