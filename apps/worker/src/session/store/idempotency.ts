/**
 * @module session/store/idempotency
 * The `Idempotency-Key` records a session keeps for 24 hours in
 * `condense_idempotency`, per route and key (the key and body hash come from
 * `api/idempotency-key`). The same key with the same body gets the first
 * answer again; with a different body, 409.
 */

import { ApiError } from "../../api/errors";
import type { IdempotencyInput } from "../../api/idempotency-key";

/** The routes that keep answers, each with its own key space. */
export type IdempotentRoute = "append" | "compact";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The stored answer for a retry, undefined when there is none (or it expired), or a 409 when the key
 * was used with another body.
 */
export function replay<T>(
  sql: SqlStorage,
  route: IdempotentRoute,
  input: IdempotencyInput | undefined,
  now: number,
): T | undefined {
  if (input === undefined) return undefined;
  const row = sql
    .exec<{ body_hash: string; response: string; created_at: number }>(
      "SELECT body_hash, response, created_at FROM condense_idempotency WHERE route = ? AND key = ?",
      route,
      input.key,
    )
    .toArray()[0];
  if (row === undefined || row.created_at < now - IDEMPOTENCY_TTL_MS) return undefined;
  if (row.body_hash !== input.bodyHash) {
    throw new ApiError(
      409,
      "idempotency_conflict",
      "this Idempotency-Key was already used with a different request body; use a new key for a new request",
      { key: input.key },
    );
  }
  return JSON.parse(row.response) as T;
}

/** Keeps `response` as the answer to `input` (and drops expired records). */
export function remember(
  sql: SqlStorage,
  route: IdempotentRoute,
  input: IdempotencyInput | undefined,
  response: unknown,
  now: number,
): void {
  if (input === undefined) return;
  sql.exec("DELETE FROM condense_idempotency WHERE created_at < ?", now - IDEMPOTENCY_TTL_MS);
  sql.exec(
    `INSERT OR REPLACE INTO condense_idempotency (key, route, body_hash, status, response, created_at)
     VALUES (?, ?, ?, 200, ?, ?)`,
    input.key,
    route,
    input.bodyHash,
    JSON.stringify(response),
    now,
  );
}

/** Identifies a request in flight, so a concurrent retry joins it instead of running again. */
export function inflightKey(input: IdempotencyInput): string {
  return `${input.key}\u0000${input.bodyHash}`;
}
