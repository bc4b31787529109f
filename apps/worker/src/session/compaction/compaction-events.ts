/**
 * @module session/compaction/compaction-events
 * A session's compaction events, for clients and operators who act before
 * and after a compaction (as agents' hooks do): `compaction.started`, then one
 * of `compaction.committed` (tier, tokens, the bill), `compaction.unchanged`
 * (nothing smaller came of it) or `compaction.failed` (what went wrong; with
 * `fallback: true` the deterministic tier runs next and its own outcome
 * follows). Events of one run share its `run` id.
 *
 * Each event is a row of `condense_events`, written where the compaction
 * writes (the committed one in the commit's transaction), so none is lost and
 * recording one is a small insert that never waits on anything. The latest
 * 1,000 are kept (`GET /v1/sessions/{id}/events`). With the session's
 * `webhookUrl` set, each is also POSTed there, signed with its
 * `webhookSecret`: `X-Condense-Signature: t=<unix seconds>,v1=<hex
 * HMAC-SHA256(secret, "<t>.<body>")>`. Delivery runs off every request's path
 * (after the compaction, and from the object's alarm), at least once: a
 * receiver dedupes by `X-Condense-Event-Id`. A failed delivery (no 2xx within
 * 10 s) is retried with backoff, 10 s to 6 h, 8 attempts over about 9 hours;
 * then the event is marked failed (the status counts them).
 */

import type { SessionEventBody } from "../../api/schemas";
import { readSession } from "../store/session-record";
import { readSettings } from "../store/settings";

export type CompactionEventType =
  | "compaction.started"
  | "compaction.committed"
  | "compaction.unchanged"
  | "compaction.failed";

/** Waits before each retry of a failed delivery; after the last, the event is marked failed. */
export const DELIVERY_BACKOFF_MS: readonly number[] = [
  10_000, 60_000, 300_000, 1_800_000, 3_600_000, 7_200_000, 21_600_000,
];
/** How long a receiver may take to answer a delivery. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** Events kept per session (those still to deliver are never dropped). */
export const MAX_EVENTS = 1_000;
/** Deliveries per run: the rest follow at the next (the alarm comes back at once). */
const DELIVERY_BATCH = 25;

const SECRET_KEY = "webhookSecret";

type Delivery = "none" | "pending" | "delivered" | "failed";

type EventRow = {
  id: number;
  at: number;
  type: string;
  body: string;
  delivery: Delivery;
  attempts: number;
  nextAttemptAt: number | null;
  lastError: string | null;
};

/** The webhook's signing secret (write-only: never shown). */
export function readWebhookSecret(sql: SqlStorage): string | undefined {
  const row = sql
    .exec<{ value: string }>("SELECT value FROM condense_settings WHERE key = ?", SECRET_KEY)
    .toArray()[0];
  return row === undefined ? undefined : (JSON.parse(row.value) as string);
}

/** Sets (or with null removes) the webhook's signing secret; run it in the settings' transaction. */
export function writeWebhookSecret(sql: SqlStorage, secret: string | null): void {
  if (secret === null) sql.exec("DELETE FROM condense_settings WHERE key = ?", SECRET_KEY);
  else {
    sql.exec(
      "INSERT OR REPLACE INTO condense_settings (key, value) VALUES (?, ?)",
      SECRET_KEY,
      JSON.stringify(secret),
    );
  }
}

/**
 * Records an event of compaction run `run` (in the caller's transaction, if any); it is delivered
 * to the session's webhook, when one is set, by `deliverDueEvents`.
 */
export function recordCompactionEvent(
  sql: SqlStorage,
  type: CompactionEventType,
  run: string,
  data: Record<string, unknown>,
  now: number,
): void {
  const session = readSession(sql);
  if (session === undefined) return;
  const webhook = readSettings(sql).webhookUrl;
  const id = sql
    .exec<{ id: number }>(
      `INSERT INTO condense_events (at, type, body, delivery, attempts, next_attempt_at)
       VALUES (?, ?, '', ?, 0, ?) RETURNING id`,
      now,
      type,
      webhook === null ? "none" : "pending",
      webhook === null ? null : now,
    )
    .one().id;
  const body: SessionEventBody = {
    id,
    type,
    at: new Date(now).toISOString(),
    sessionId: session.sessionId,
    run,
    data,
  };
  sql.exec("UPDATE condense_events SET body = ? WHERE id = ?", JSON.stringify(body), id);
  sql.exec(
    `DELETE FROM condense_events WHERE delivery <> 'pending' AND id <= (
       SELECT id FROM condense_events ORDER BY id DESC LIMIT 1 OFFSET ?)`,
    MAX_EVENTS,
  );
}

/** When the next delivery is due, or undefined when none waits. */
export function nextDeliveryAt(sql: SqlStorage): number | undefined {
  const row = sql
    .exec<{ at: number | null }>(
      "SELECT MIN(next_attempt_at) AS at FROM condense_events WHERE delivery = 'pending'",
    )
    .one();
  return row.at ?? undefined;
}

const encoder = new TextEncoder();

/** `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. */
export async function signature(secret: string, body: string, now: number): Promise<string> {
  const t = Math.floor(now / 1000);
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`${t}.${body}`));
  const hex = [...new Uint8Array(mac)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `t=${t},v1=${hex}`;
}

/** POSTs one event; the receiver's failure as text, or undefined on a 2xx. */
async function post(
  url: string,
  secret: string | undefined,
  row: EventRow,
): Promise<string | undefined> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "Condense-Webhook/1",
    "X-Condense-Event": row.type,
    "X-Condense-Event-Id": String(row.id),
  };
  // Signed at the wall clock's time, not the session's: the receiver checks it against its own.
  if (secret !== undefined)
    headers["X-Condense-Signature"] = await signature(secret, row.body, Date.now());
  try {
    const response = await fetch(url, {
      method: "POST",
      headers,
      body: row.body,
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    await response.body?.cancel();
    return response.ok ? undefined : `the webhook answered ${response.status}`;
  } catch (error) {
    return error instanceof Error && error.name === "TimeoutError"
      ? `the webhook did not answer within ${DELIVERY_TIMEOUT_MS / 1000} s`
      : `the webhook could not be reached (${error instanceof Error ? error.name : "error"})`;
  }
}

/**
 * Delivers the events that are due, oldest first, at most a batch; the storage is `open()`ed again
 * after each delivery (the session may have been deleted meanwhile). Returns how many it tried.
 */
export async function deliverDueEvents(
  open: () => SqlStorage | undefined,
  now: () => number,
): Promise<number> {
  const sql = open();
  if (sql === undefined || readSession(sql) === undefined) return 0;
  const url = readSettings(sql).webhookUrl;
  const dueBy = now();
  const due = sql
    .exec<EventRow>(
      `SELECT id, at, type, body, delivery, attempts, next_attempt_at AS nextAttemptAt,
         last_error AS lastError
       FROM condense_events WHERE delivery = 'pending' AND next_attempt_at <= ?
       ORDER BY id LIMIT ?`,
      dueBy,
      DELIVERY_BATCH,
    )
    .toArray();
  if (url === null) {
    // The webhook was removed: nothing waits for these any more.
    sql.exec(
      "UPDATE condense_events SET delivery = 'none', next_attempt_at = NULL WHERE delivery = 'pending'",
    );
    return 0;
  }
  const secret = readWebhookSecret(sql);
  for (const row of due) {
    const failure = await post(url, secret, row);
    const after = open();
    if (after === undefined || readSession(after) === undefined) return due.length;
    const attempts = row.attempts + 1;
    if (failure === undefined) {
      after.exec(
        "UPDATE condense_events SET delivery = 'delivered', attempts = ?, next_attempt_at = NULL, last_error = NULL WHERE id = ?",
        attempts,
        row.id,
      );
      continue;
    }
    const wait = DELIVERY_BACKOFF_MS[attempts - 1];
    const retryAt = now() + (wait ?? 0);
    after.exec(
      "UPDATE condense_events SET delivery = ?, attempts = ?, next_attempt_at = ?, last_error = ? WHERE id = ?",
      wait === undefined ? "failed" : "pending",
      attempts,
      wait === undefined ? null : retryAt,
      failure,
      row.id,
    );
    // The receiver is failing: the events after this one wait for its retry too, rather than
    // each meet the same failure now.
    if (wait !== undefined) {
      after.exec(
        "UPDATE condense_events SET next_attempt_at = MAX(next_attempt_at, ?) WHERE delivery = 'pending' AND id > ?",
        retryAt,
        row.id,
      );
    }
    return due.length;
  }
  return due.length;
}

/** The events after `after`, oldest first, at most `limit` (`GET /events`). */
export function eventsPage(
  sql: SqlStorage,
  after: number,
  limit: number,
): { events: SessionEventBody[]; nextAfter: number | null } {
  const rows = sql
    .exec<{ id: number; body: string }>(
      "SELECT id, body FROM condense_events WHERE id > ? ORDER BY id LIMIT ?",
      after,
      limit + 1,
    )
    .toArray();
  const page = rows.slice(0, limit);
  return {
    events: page.map((row) => JSON.parse(row.body) as SessionEventBody),
    nextAfter: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
  };
}

/** The webhook's deliveries, for the status. */
export function webhookStatus(sql: SqlStorage): {
  pending: number;
  delivered: number;
  failed: number;
  lastError: string | null;
  nextAttemptAt: string | null;
} {
  const counts = { pending: 0, delivered: 0, failed: 0 };
  for (const row of sql.exec<{ delivery: Delivery; n: number }>(
    "SELECT delivery, COUNT(*) AS n FROM condense_events WHERE delivery <> 'none' GROUP BY delivery",
  )) {
    if (row.delivery !== "none") counts[row.delivery] = row.n;
  }
  const last = sql
    .exec<{ lastError: string | null }>(
      "SELECT last_error AS lastError FROM condense_events WHERE last_error IS NOT NULL ORDER BY id DESC LIMIT 1",
    )
    .toArray()[0];
  const next = nextDeliveryAt(sql);
  return {
    ...counts,
    lastError: last?.lastError ?? null,
    nextAttemptAt: next === undefined ? null : new Date(next).toISOString(),
  };
}
