/**
 * @module session/compaction/history
 * The `condense_compactions` table: one row per committed compaction (tier,
 * tokens before and after, the transcript range it folded in, its summary,
 * any summarizer failure, how long it took, and whether it is the deterministic
 * fallback of a configured compaction that threw), and its API shape.
 */

import type { CompactionStrategy } from "../../api/compaction-strategy";
import type { CompactionTrigger } from "../../api/compaction-trigger";
import type { CompactionEventBody } from "../../api/schemas";
import { insertRow } from "../../sqlite/insert-row";

/** The table's columns as the row's camelCase fields. */
const COMPACTION_COLUMNS = `id, at, trigger, strategy, tier, tokens_before AS tokensBefore,
  tokens_after AS tokensAfter, from_seq AS fromSeq, to_seq AS toSeq, summary, summarizer,
  failure_kind AS failureKind, failure_message AS failureMessage, pruned_count AS prunedCount,
  passes, duration_ms AS durationMs, fallback_attempts AS fallbackAttempts,
  fallback_error AS fallbackError`;

type CompactionRow = {
  id: number;
  at: number;
  trigger: CompactionTrigger;
  strategy: CompactionStrategy;
  tier: number;
  tokensBefore: number;
  tokensAfter: number;
  fromSeq: number;
  toSeq: number;
  summary: string | null;
  summarizer: string | null;
  failureKind: string | null;
  failureMessage: string | null;
  prunedCount: number;
  passes: number;
  /** NULL for compactions recorded before schema v3. */
  durationMs: number | null;
  /** Set on a deterministic fallback after the configured compaction threw (schema v6). */
  fallbackAttempts: number | null;
  fallbackError: string | null;
};

/** A deterministic fallback after the configured compaction threw: the attempts that failed in a row, and the last error. */
export interface CompactionFallback {
  failedAttempts: number;
  error: string;
}

/** What a commit records; the id and the API shape come back from `recordCompaction`. */
export interface CompactionRecord {
  at: number;
  trigger: CompactionTrigger;
  strategy: CompactionStrategy;
  tier: number;
  tokensBefore: number;
  tokensAfter: number;
  fromSeq: number;
  toSeq: number;
  summary: string | null;
  /** `llm`, `extractive` or `openai-responses-compact`; null without a summary. */
  summarizer: string | null;
  failure: { kind: string; message: string } | null;
  prunedCount: number;
  passes: number;
  /** From the snapshot to the commit, the time the summarizer took included. */
  durationMs: number;
  /** Set when this is the deterministic fallback. */
  fallback: CompactionFallback | null;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function eventFromRow(row: CompactionRow): CompactionEventBody {
  return {
    id: row.id,
    at: iso(row.at),
    trigger: row.trigger,
    strategy: row.strategy === "openai" ? "openai" : "local",
    tier: row.tier,
    tokensBefore: row.tokensBefore,
    tokensAfter: row.tokensAfter,
    range: { fromSeq: row.fromSeq, toSeq: row.toSeq },
    summary: row.summary,
    summarizer: row.summarizer,
    summarizerFailure:
      row.failureKind === null
        ? null
        : { kind: row.failureKind, message: row.failureMessage ?? "" },
    prunedToolOutputs: row.prunedCount,
    passes: row.passes,
    durationMs: row.durationMs,
    fallback:
      row.fallbackAttempts === null
        ? null
        : { failedAttempts: row.fallbackAttempts, error: row.fallbackError ?? "" },
  };
}

/** Inserts the event; run it inside the commit's transaction. */
export function recordCompaction(sql: SqlStorage, record: CompactionRecord): CompactionEventBody {
  const row = insertRow<CompactionRow>(
    sql,
    "condense_compactions",
    {
      at: record.at,
      trigger: record.trigger,
      strategy: record.strategy,
      tier: record.tier,
      tokens_before: record.tokensBefore,
      tokens_after: record.tokensAfter,
      from_seq: record.fromSeq,
      to_seq: record.toSeq,
      summary: record.summary,
      summarizer: record.summarizer,
      failure_kind: record.failure?.kind ?? null,
      failure_message: record.failure?.message ?? null,
      pruned_count: record.prunedCount,
      passes: record.passes,
      duration_ms: record.durationMs,
      fallback_attempts: record.fallback?.failedAttempts ?? null,
      fallback_error: record.fallback?.error ?? null,
    },
    { returning: COMPACTION_COLUMNS },
  ).one();
  return eventFromRow(row);
}

/** Every committed compaction, oldest first. */
export function listCompactions(sql: SqlStorage): CompactionEventBody[] {
  return sql
    .exec<CompactionRow>(`SELECT ${COMPACTION_COLUMNS} FROM condense_compactions ORDER BY id`)
    .toArray()
    .map(eventFromRow);
}

/** How many compactions the session committed, and the latest of them (null before the first). */
export function compactionCountAndLast(sql: SqlStorage): {
  count: number;
  last: CompactionEventBody | null;
} {
  const count = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM condense_compactions").one().n;
  const last = sql
    .exec<CompactionRow>(
      `SELECT ${COMPACTION_COLUMNS} FROM condense_compactions ORDER BY id DESC LIMIT 1`,
    )
    .toArray()[0];
  return { count, last: last === undefined ? null : eventFromRow(last) };
}
