/**
 * @module log/log-lines
 * Structured logs: every line is one JSON object with its time. The Worker
 * writes one per request (`http/request-log`) and the session object one per
 * compaction. The lines carry ids, counts and timings only; message content,
 * API keys and bearer tokens never reach them (the fields are an allow-list,
 * not a dump).
 */

export interface CompactionLogLine {
  /** The request that ran it (manual, context, overflow); absent for background (alarm) runs. */
  requestId?: string;
  user: string;
  session: string;
  /** What started it: `append` (alarm), `context`, `manual`, `overflow`. */
  trigger: string;
  outcome: "committed" | "not_needed" | "discarded" | "failed";
  tier?: number;
  tokensBefore?: number;
  tokensAfter?: number;
  durationMs: number;
  summarizer?: string;
  summarizerFailure?: string;
  /** Why a `failed` compaction threw: the engine's error code, else the error's class name. */
  error?: string;
  /** A deterministic fallback after the configured compaction threw. */
  fallback?: boolean;
  coveredSeq?: number;
  /** The latest gateway request's fixed overhead (its tool definitions), when it has one. */
  overheadTokens?: number;
  /**
   * `crowded_by_overhead`: the overhead leaves the window too little room for the compaction to
   * reach its target; the next waits until the context has grown (`compaction/exhaustion`).
   */
  warning?: "crowded_by_overhead";
}

/** What every line of one compaction carries: who and what started it. */
export type CompactionLogBase = Pick<
  CompactionLogLine,
  "requestId" | "user" | "session" | "trigger"
>;

export function logLine(line: Record<string, unknown>): void {
  console.log(JSON.stringify({ time: new Date().toISOString(), ...line }));
}

export function logCompaction(line: CompactionLogLine): void {
  logLine({ type: "compaction", ...line });
}
