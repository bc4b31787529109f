/**
 * @module log/log-lines
 * The Worker's one logger. Every record is an object of one shape —
 * `{ time, level, type, …fields }` — handed to `console.log` (`console.warn`,
 * `console.error` by level) as an object, so Workers Logs indexes its fields.
 * The Worker writes one per request (`http/request-log`), the session object
 * one per compaction, and the rest name what happened in `type`. The records
 * carry ids, counts and timings only; message content, API keys and bearer
 * tokens never reach them (the fields are an allow-list, not a dump). An
 * error is logged by its name, its message (clipped, secrets withheld: a
 * message may quote input) and its stack's frames (`errorFields`).
 */

import { withholdSecrets } from "@condense/core";
import type { CompactionTrigger } from "../api/compaction-trigger";

export type LogLevel = "debug" | "info" | "warn" | "error";

/** A log record's own fields: what happened, its level (default info), and allow-listed figures. */
export type LogRecord = { type: string; level?: LogLevel } & Record<string, unknown>;

export interface CompactionLogLine {
  /** The request that ran it (manual, context, overflow); absent for background (alarm) runs. */
  requestId?: string;
  user: string;
  session: string;
  /** What started it. */
  trigger: CompactionTrigger;
  outcome: "committed" | "not_needed" | "discarded" | "failed";
  tier?: number;
  tokensBefore?: number;
  tokensAfter?: number;
  durationMs: number;
  /** What wrote the committed summary (`llm`, `extractive`, `openai-responses-compact`); absent when none was written. */
  summarizer?: string;
  /** Why the configured summarizer failed: the kind of its failure, when the tier degraded past it. */
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
   * `thrashing`: the context refills within a few turns of each compaction, and this one moved
   * the largest outputs to recall first (`compaction/thrashing`).
   */
  warning?: "crowded_by_overhead" | "thrashing";
  /** With `thrashing`: model turns between each compaction of the run and the one before, newest first. */
  thrashTurnsApart?: number[];
}

/** What every line of one compaction carries: who and what started it. */
export type CompactionLogBase = Pick<
  CompactionLogLine,
  "requestId" | "user" | "session" | "trigger"
>;

const WRITERS: Record<LogLevel, (record: object) => void> = {
  debug: (record) => console.debug(record),
  info: (record) => console.log(record),
  warn: (record) => console.warn(record),
  error: (record) => console.error(record),
};

export function logLine(line: LogRecord): void {
  const level = line.level ?? "info";
  WRITERS[level]({ time: new Date().toISOString(), level, ...line });
}

export function logCompaction(line: CompactionLogLine): void {
  logLine({ type: "compaction", ...line });
}

/** Characters of an error's message a record keeps. */
const MESSAGE_CHARS = 300;

/**
 * An error as a record may carry it: its name, its message clipped with secrets withheld, and the
 * frames of its stack (the stack's first line repeats the message).
 */
export function errorFields(error: unknown): { error: string; message?: string; stack?: string } {
  if (!(error instanceof Error)) return { error: typeof error };
  const message = withholdSecrets(error.message).slice(0, MESSAGE_CHARS);
  const frames = (error.stack ?? "")
    .split("\n")
    .filter((line) => /^\s+at\s/.test(line))
    .map((line) => line.trim())
    .join("\n");
  return { error: error.name, message, ...(frames !== "" ? { stack: frames } : {}) };
}
