/**
 * @module session/store/session-record
 * The one `condense_session` row of a session's object: its owner, epoch,
 * counters, summarizer cooldown, token calibration, the pending background
 * trigger, how far compaction has gone, the identifier ledger carried from
 * one compaction to the next, the window a provider's overflow error stated,
 * the size of the context last served, the compactions failing in a row and
 * the latest gateway request's fixed overhead. The epoch changes when a session
 * is deleted and created again, so a compaction that started before can tell
 * that its snapshot belongs to a session that no longer exists.
 */

import type { Ledger } from "@condense/core";
import type { CompactionTrigger } from "../../api/compaction-trigger";
import { ApiError } from "../../api/errors";
import type { Calibration } from "./calibration";

/** Which session: the authenticated user and the session id (the object's name encodes both). */
export interface SessionKey {
  userId: string;
  sessionId: string;
}

/**
 * A call on a session's object: the session's key, and the id of the Worker's request that makes
 * it, which the log lines of a compaction the call runs carry (it names the request, not the session).
 */
export interface SessionCall extends SessionKey {
  requestId?: string;
}

/** The session's row as the modules read it (`readSession`), its columns in camelCase. */
export type SessionRow = {
  userId: string;
  sessionId: string;
  epoch: string;
  createdAt: number;
  updatedAt: number;
  lastModel: string | null;
  messageCount: number;
  transcriptTokens: number;
  cooldownUntil: number | null;
  calibrationRatio: number;
  calibrationSamples: number;
  pendingTrigger: CompactionTrigger | null;
  /** When the pending background compaction is due (schema v18; NULL: at once, or none pending). */
  pendingDueAt: number | null;
  exhaustedSeq: number | null;
  /** JSON of the `ledger` the last summarizing compaction returned (schema v2). */
  ledger: string | null;
  /** The context window a provider's overflow error stated for `learnedWindowModel` (schema v4). */
  learnedWindow: number | null;
  learnedWindowModel: string | null;
  /** Engine tokens (pinned included) and last seq of the context last served to the client (schema v4). */
  servedTokens: number | null;
  servedSeq: number | null;
  /** Configured compactions that threw in a row, what went wrong last and when (schema v6). */
  failedAttempts: number;
  lastFailureAt: number | null;
  lastFailure: string | null;
  /** When the alarm tries a failed background compaction again (schema v6). */
  retryAt: number | null;
  /**
   * Engine tokens the latest gateway request sent beside its messages that the provider counts as
   * input, its tool definitions (`gateway/plans/request-overhead`; schema v11): the window keeps room for them.
   */
  overheadTokens: number;
  /** The cost policy's state (core `CacheState`), NULL before the first compaction (schema v12). */
  cacheExcessTokens: number | null;
  cacheCompactedTokens: number | null;
  cacheStableTokens: number | null;
  /** JSON of the memory block frozen for the view of `memoryBlockCompaction` (schema v12). */
  memoryBlock: string | null;
  memoryBlockCompaction: number | null;
};

export function notFound(sessionId: string): ApiError {
  return new ApiError(
    404,
    "not_found",
    `session ${JSON.stringify(sessionId)} not found; a session exists once a message has been appended to it or its settings were set with PATCH`,
  );
}

/** The columns of `condense_session` as {@link SessionRow}'s fields: snake_case stays in the SQL. */
const SESSION_COLUMNS = `
  user_id AS userId, session_id AS sessionId, epoch, created_at AS createdAt,
  updated_at AS updatedAt, last_model AS lastModel, message_count AS messageCount,
  transcript_tokens AS transcriptTokens, cooldown_until AS cooldownUntil,
  calibration_ratio AS calibrationRatio, calibration_samples AS calibrationSamples,
  pending_trigger AS pendingTrigger, pending_due_at AS pendingDueAt, exhausted_seq AS exhaustedSeq, ledger,
  learned_window AS learnedWindow, learned_window_model AS learnedWindowModel,
  served_tokens AS servedTokens, served_seq AS servedSeq, failed_attempts AS failedAttempts,
  last_failure_at AS lastFailureAt, last_failure AS lastFailure, retry_at AS retryAt,
  overhead_tokens AS overheadTokens, cache_excess_tokens AS cacheExcessTokens,
  cache_compacted_tokens AS cacheCompactedTokens, cache_stable_tokens AS cacheStableTokens,
  memory_block AS memoryBlock, memory_block_compaction AS memoryBlockCompaction`;

/**
 * The row as read in the current synchronous step, per storage (null: no session). A turn's modules
 * each read the fields they need (the owner, the counters, the calibration, the overhead…): read once,
 * the row is shared until the step ends (the next await, when another request may write) or until
 * the session is written (`writeSession`) or a transaction rolls back (`forgetSessionRow`).
 */
const rows = new WeakMap<SqlStorage, SessionRow | null>();

export function readSession(sql: SqlStorage): SessionRow | undefined {
  const cached = rows.get(sql);
  if (cached !== undefined) return cached ?? undefined;
  const row = sql
    .exec<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM condense_session WHERE id = 1`)
    .toArray()[0];
  // Frozen: every reader of the step shares it.
  rows.set(sql, row === undefined ? null : Object.freeze(row));
  queueMicrotask(() => rows.delete(sql));
  return row;
}

/**
 * Runs a statement that writes `condense_session` (every write of the row goes through here, so a
 * read after it sees it: `readSession`).
 */
export function writeSession<T extends Record<string, SqlStorageValue>>(
  sql: SqlStorage,
  query: string,
  ...bindings: SqlStorageValue[]
): T[] {
  // Run whole here (a cursor runs as it is read), so the row is forgotten after the write. (A
  // statement that throws wrote nothing: the row read before it still holds.)
  const returned = sql.exec<T>(query, ...bindings).toArray();
  rows.delete(sql);
  return returned;
}

/**
 * Runs a statement that writes `condense_session` whose effect on the row read in this step is
 * `patch` (an append's counters, the context served): that row stays read, patched, instead of being
 * read again by the next reader.
 */
function writeSessionKnown(
  sql: SqlStorage,
  patch: (row: SessionRow) => Partial<SessionRow>,
  query: string,
  ...bindings: SqlStorageValue[]
): void {
  const row = rows.get(sql);
  writeSession(sql, query, ...bindings);
  if (row) rows.set(sql, Object.freeze({ ...row, ...patch(row) }));
}

/** Forgets the row read in this step: a transaction that wrote it rolled back. */
export function forgetSessionRow(sql: SqlStorage): void {
  rows.delete(sql);
}

/** The session `key` names, or the 404 for a session that does not exist or is not the caller's. */
export function requireSession(sql: SqlStorage, key: SessionKey): SessionRow {
  return ownedSession(readSession(sql), key);
}

/** `row`, when it is the session `key` names, else the 404. */
function ownedSession(row: SessionRow | undefined, key: SessionKey): SessionRow {
  // The object's name already encodes the user; the stored owner is checked as defence in depth.
  if (row === undefined || row.userId !== key.userId || row.sessionId !== key.sessionId) {
    throw notFound(key.sessionId);
  }
  return row;
}

/**
 * The session of `key`, created (empty, with a new epoch) if this object holds none. `existing`: the
 * row the caller read in the same transaction, nothing written since.
 */
export function openSession(
  sql: SqlStorage,
  key: SessionKey,
  now: number,
  existing: SessionRow | undefined = readSession(sql),
): SessionRow {
  if (existing !== undefined) return ownedSession(existing, key);
  writeSession(
    sql,
    `INSERT INTO condense_session (id, user_id, session_id, epoch, created_at, updated_at)
     VALUES (1, ?, ?, ?, ?, ?)`,
    key.userId,
    key.sessionId,
    crypto.randomUUID(),
    now,
    now,
  );
  return requireSession(sql, key);
}

/** Whether compaction already went as far as it can for the transcript up to `lastSeq`. */
export function isExhausted(session: SessionRow, lastSeq = session.messageCount): boolean {
  return session.exhaustedSeq !== null && session.exhaustedSeq >= lastSeq;
}

export function saveCalibration(sql: SqlStorage, calibration: Calibration): void {
  writeSession(
    sql,
    "UPDATE condense_session SET calibration_ratio = ?, calibration_samples = ? WHERE id = 1",
    calibration.ratio,
    calibration.samples,
  );
}

/** Until when the LLM summarizer is skipped after a failure; run it inside the commit's transaction. */
export function saveCooldown(sql: SqlStorage, cooldownUntil: number): void {
  writeSession(sql, "UPDATE condense_session SET cooldown_until = ? WHERE id = 1", cooldownUntil);
}

export function calibrationOf(session: SessionRow): Calibration {
  return { ratio: session.calibrationRatio, samples: session.calibrationSamples };
}

/** Marks a background compaction as wanted from `dueAt` on (the caller sets the alarm). */
export function setPendingTrigger(
  sql: SqlStorage,
  trigger: CompactionTrigger,
  dueAt: number,
): void {
  writeSession(
    sql,
    "UPDATE condense_session SET pending_trigger = ?, pending_due_at = ? WHERE id = 1",
    trigger,
    dueAt,
  );
}

/** A compaction ran (or found nothing to do): no background compaction is pending any more. */
export function clearPendingTrigger(sql: SqlStorage): void {
  writeSession(
    sql,
    "UPDATE condense_session SET pending_trigger = NULL, pending_due_at = NULL WHERE id = 1",
  );
}

/**
 * When the alarm may run `session`'s pending background compaction: its due time, or its retry's
 * after a failure, whichever is later; undefined when none is pending, or when one marked before
 * due times were stored has no retry (it is due at once).
 */
export function pendingDueAt(session: SessionRow): number | undefined {
  if (session.pendingTrigger === null) return undefined;
  const times = [session.pendingDueAt, session.retryAt].filter((at) => at !== null);
  return times.length > 0 ? Math.max(...times) : undefined;
}

/**
 * Up to which transcript seq compaction already went as far as it can (null: it may get further: new
 * limits, a new strategy, a provider's refusal). With `updatedAt`, the session's `updated_at` too.
 */
export function setExhaustedSeq(
  sql: SqlStorage,
  exhaustedSeq: number | null,
  updatedAt?: number,
): void {
  writeSession(
    sql,
    "UPDATE condense_session SET exhausted_seq = ?, updated_at = COALESCE(?, updated_at) WHERE id = 1",
    exhaustedSeq,
    updatedAt ?? null,
  );
}

export function setLastModel(sql: SqlStorage, model: string): void {
  writeSession(sql, "UPDATE condense_session SET last_model = ? WHERE id = 1", model);
}

/** The transcript's size as the session counts it: its messages (seqs 1…count) and their tokens. */
export type TranscriptTotals = {
  count: number;
  tokens: number;
};

/**
 * The session's {@link TranscriptTotals}, kept with every message appended (`countAppended`) and
 * every recount, or undefined before the session exists.
 */
export function transcriptTotals(sql: SqlStorage): TranscriptTotals | undefined {
  const session = readSession(sql);
  return session === undefined
    ? undefined
    : { count: session.messageCount, tokens: session.transcriptTokens };
}

/**
 * Counts appended messages in (the batch up to `lastSeq`, `tokens` in all); run it in the append's
 * transaction, after their rows and before anything reads the counters (`transcriptTotals`).
 */
export function countAppended(sql: SqlStorage, lastSeq: number, tokens: number, now: number): void {
  writeSessionKnown(
    sql,
    (row) => ({
      messageCount: lastSeq,
      transcriptTokens: row.transcriptTokens + tokens,
      updatedAt: now,
    }),
    `UPDATE condense_session SET message_count = ?, transcript_tokens = transcript_tokens + ?, updated_at = ?
     WHERE id = 1`,
    lastSeq,
    tokens,
    now,
  );
}

/**
 * Sets the transcript's token total after a recount for another model, and forgets the size of the
 * context last served: it was counted for the old model, so a later overflow report compares with
 * the current context instead.
 */
export function saveRecountedTokens(sql: SqlStorage, transcriptTokens: number): void {
  writeSession(
    sql,
    "UPDATE condense_session SET transcript_tokens = ?, served_tokens = NULL, served_seq = NULL WHERE id = 1",
    transcriptTokens,
  );
}

/** The ledger the last summarizing compaction returned, for the next one. */
export function ledgerOf(session: SessionRow): Ledger | undefined {
  return session.ledger === null ? undefined : (JSON.parse(session.ledger) as Ledger);
}

/** Stores a compaction's ledger; run it inside the commit's transaction. */
export function saveLedger(sql: SqlStorage, ledger: Ledger): void {
  writeSession(sql, "UPDATE condense_session SET ledger = ? WHERE id = 1", JSON.stringify(ledger));
}

/** The window a provider stated for `model`, if one was learned for that model. */
export function learnedWindowOf(session: SessionRow, model: string): number | undefined {
  return session.learnedWindow !== null && session.learnedWindowModel === model
    ? session.learnedWindow
    : undefined;
}

/** Remembers the window a provider's overflow error stated for `model`. */
export function saveLearnedWindow(sql: SqlStorage, window: number, model: string): void {
  writeSession(
    sql,
    "UPDATE condense_session SET learned_window = ?, learned_window_model = ? WHERE id = 1",
    window,
    model,
  );
}

/** Records the latest gateway request's fixed overhead (engine tokens). */
export function saveOverhead(sql: SqlStorage, tokens: number): void {
  writeSession(sql, "UPDATE condense_session SET overhead_tokens = ? WHERE id = 1", tokens);
}

/** Records the size of the context just served, which a later overflow report's count refers to. */
export function saveServed(sql: SqlStorage, tokens: number, lastSeq: number): void {
  writeSessionKnown(
    sql,
    () => ({ servedTokens: tokens, servedSeq: lastSeq }),
    "UPDATE condense_session SET served_tokens = ?, served_seq = ? WHERE id = 1",
    tokens,
    lastSeq,
  );
}

/**
 * The engine tokens of the context the client last fetched, if it is still the one it would send: no
 * message was appended since (a compaction since does not matter, the client still holds the old one).
 */
export function servedTokens(session: SessionRow): number | undefined {
  return session.servedTokens !== null && session.servedSeq === session.messageCount
    ? session.servedTokens
    : undefined;
}

/** A configured compaction threw: one more failed attempt in a row, and what went wrong. Returns the count. */
export function recordFailure(sql: SqlStorage, message: string, at: number): number {
  const row = writeSession<{ failed_attempts: number }>(
    sql,
    `UPDATE condense_session SET failed_attempts = failed_attempts + 1, last_failure_at = ?, last_failure = ?
       WHERE id = 1 RETURNING failed_attempts`,
    at,
    message,
  )[0];
  return row?.failed_attempts ?? 0;
}

/** When the alarm tries again after a failure, or null when it does not. */
export function setRetryAt(sql: SqlStorage, retryAt: number | null): void {
  writeSession(sql, "UPDATE condense_session SET retry_at = ? WHERE id = 1", retryAt);
}

/** The configured compaction works (again), or new settings deserve a fresh start: no failure to show. */
export function clearFailure(sql: SqlStorage): void {
  writeSession(
    sql,
    `UPDATE condense_session SET failed_attempts = 0, last_failure_at = NULL, last_failure = NULL,
       retry_at = NULL WHERE id = 1`,
  );
}
