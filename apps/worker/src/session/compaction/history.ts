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
import { insertRow, table } from "../../sqlite/insert-row";

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
  /** JSON of the summary's usage through the cache (schema v16), else NULL. */
  summaryUsage: string | null;
};

/** `condense_compactions`: the row's fields and their columns. */
const COMPACTIONS = table<CompactionRow, "id">(
  "condense_compactions",
  {
    id: "id",
    at: "at",
    trigger: "trigger",
    strategy: "strategy",
    tier: "tier",
    tokensBefore: "tokens_before",
    tokensAfter: "tokens_after",
    fromSeq: "from_seq",
    toSeq: "to_seq",
    summary: "summary",
    summarizer: "summarizer",
    failureKind: "failure_kind",
    failureMessage: "failure_message",
    prunedCount: "pruned_count",
    passes: "passes",
    durationMs: "duration_ms",
    fallbackAttempts: "fallback_attempts",
    fallbackError: "fallback_error",
    summaryUsage: "summary_usage",
  },
  { generated: ["id"] },
);

/** A deterministic fallback after the configured compaction threw: the attempts that failed in a row, and the last error. */
export interface CompactionFallback {
  failedAttempts: number;
  error: string;
}

/** What a summary's requests through the cache cost, as the provider counted them. */
export interface SummaryUsage {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
}

/** The stored usage, or null when the column holds none (or what it holds is not one). */
function summaryUsageOf(text: string | null): SummaryUsage | null {
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  return typeof value === "object" && value !== null ? (value as SummaryUsage) : null;
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
  /** What the summary's requests through the cache cost; null for any other summary. */
  summaryUsage: SummaryUsage | null;
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
    summaryUsage: summaryUsageOf(row.summaryUsage),
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
  const row = insertRow(
    sql,
    COMPACTIONS,
    {
      at: record.at,
      trigger: record.trigger,
      strategy: record.strategy,
      tier: record.tier,
      tokensBefore: record.tokensBefore,
      tokensAfter: record.tokensAfter,
      fromSeq: record.fromSeq,
      toSeq: record.toSeq,
      summary: record.summary,
      summarizer: record.summarizer,
      failureKind: record.failure?.kind ?? null,
      failureMessage: record.failure?.message ?? null,
      prunedCount: record.prunedCount,
      passes: record.passes,
      durationMs: record.durationMs,
      fallbackAttempts: record.fallback?.failedAttempts ?? null,
      fallbackError: record.fallback?.error ?? null,
      summaryUsage: record.summaryUsage === null ? null : JSON.stringify(record.summaryUsage),
    },
    { returning: true },
  ).one();
  return eventFromRow(row);
}

/** Every committed compaction, oldest first. */
export function listCompactions(sql: SqlStorage): CompactionEventBody[] {
  return sql
    .exec<CompactionRow>(`SELECT ${COMPACTIONS.select} FROM ${COMPACTIONS.name} ORDER BY id`)
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
      `SELECT ${COMPACTIONS.select} FROM ${COMPACTIONS.name} ORDER BY id DESC LIMIT 1`,
    )
    .toArray()[0];
  return { count, last: last === undefined ? null : eventFromRow(last) };
}
