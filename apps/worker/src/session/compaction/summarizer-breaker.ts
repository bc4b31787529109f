/**
 * @module session/compaction/summarizer-breaker
 * A circuit breaker for the LLM summarizer, beside the cooldown (issue 33).
 * The cooldown skips the LLM for `COOLDOWN_SECONDS` after each failure, so a
 * summarizer that keeps failing (a revoked key, a model that no longer
 * exists, a provider down for hours) is still called again after every
 * cooldown, each call a timeout or an error before the deterministic tier
 * runs. The breaker counts the failures in a row, from the compaction history
 * (a compaction that called the LLM and failed, until one whose summary the
 * LLM wrote): at `BREAKER_FAILURES` it opens, and the LLM is skipped for
 * twice the cooldown, doubling with each further failure, up to
 * `MAX_OPEN_MS`. Once that passes it is half-open: the next compaction tries
 * the LLM once; a summary closes it, a failure opens it again for longer.
 * Compactions that did not call the LLM (in the cooldown, tool strips) leave
 * the count as it is. The status reports it (`compaction.summarizer`).
 */

/** LLM summarizer failures in a row that open the breaker. */
export const BREAKER_FAILURES = 3;
/** The longest the breaker stays open: a summarizer that came back is tried within this. */
export const MAX_OPEN_MS = 6 * 60 * 60 * 1000;
/** Compactions of the history read back at most. */
const HISTORY_READ = 50;

export interface SummarizerBreaker {
  /** `closed`: the LLM is called; `open`: skipped until `openUntil`; `half-open`: the next compaction tries it once. */
  state: "closed" | "open" | "half-open";
  /** Compactions in a row whose LLM summary failed. */
  consecutiveFailures: number;
  /** Until when the LLM is skipped (ms since the epoch), once the breaker opened; else null. */
  openUntil: number | null;
  /** The latest failure: its kind, what went wrong, when. */
  lastFailure: { kind: string; message: string; at: number } | null;
}

type Row = {
  at: number;
  summarizer: string | null;
  failureKind: string | null;
  failureMessage: string | null;
};

/** The breaker as the session's compaction history leaves it at `now`. */
export function summarizerBreakerOf(
  sql: SqlStorage,
  now: number,
  cooldownSeconds: number,
): SummarizerBreaker {
  const rows = sql
    .exec<Row>(
      `SELECT at, summarizer, failure_kind AS failureKind, failure_message AS failureMessage
       FROM condense_compactions
       ORDER BY id DESC LIMIT ?`,
      HISTORY_READ,
    )
    .toArray();
  let failures = 0;
  let lastFailure: SummarizerBreaker["lastFailure"] = null;
  for (const row of rows) {
    if (row.failureKind !== null) {
      failures++;
      lastFailure ??= { kind: row.failureKind, message: row.failureMessage ?? "", at: row.at };
      continue;
    }
    // A summary the LLM wrote closes the run; compactions that did not call it are passed over.
    if (row.summarizer === "llm") break;
  }
  if (failures < BREAKER_FAILURES || lastFailure === null) {
    return { state: "closed", consecutiveFailures: failures, openUntil: null, lastFailure };
  }
  const doublings = failures - BREAKER_FAILURES + 1;
  const openMs = Math.min(MAX_OPEN_MS, cooldownSeconds * 1000 * 2 ** Math.min(doublings, 20));
  const openUntil = lastFailure.at + openMs;
  return {
    state: now < openUntil ? "open" : "half-open",
    consecutiveFailures: failures,
    openUntil,
    lastFailure,
  };
}

/** Until when the LLM summarizer is skipped: the cooldown's end or the open breaker's, the later. */
export function llmSkippedUntil(
  cooldownUntil: number | null,
  breaker: SummarizerBreaker,
): number | undefined {
  const until = Math.max(
    cooldownUntil ?? 0,
    breaker.state === "open" ? (breaker.openUntil ?? 0) : 0,
  );
  return until > 0 ? until : undefined;
}
