/**
 * @module session/compaction/pending
 * Whether a background compaction is wanted: the committed context is over
 * its trigger, compaction has not already gone as far as it can, and none is
 * pending yet. The mark, with the time it is due, is written in the caller's
 * transaction; the object sets the alarm that runs it once that transaction
 * committed, and the alarm runs it no sooner than it is due.
 */

import type { CompactionTrigger } from "../../api/compaction-trigger";
import { workerConfig } from "../../config/worker-config";
import { type ContextMeasure, measureCommitted } from "../context/context-measure";
import { readSession, type SessionRow, setPendingTrigger } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { readSettings, type SessionSettings } from "../store/settings";
import { isCompactionExhausted } from "./exhaustion";

/**
 * How long the alarm leaves a session with `cachedSummaries` to the gateway's summary through the
 * cache: Anthropic's cache lifetime, after which the cache is cold and the summary would read
 * nothing from it anyway.
 */
export const CACHED_SUMMARY_GRACE_MS = 5 * 60_000;

/**
 * How long after its mark a background compaction started by `trigger` is due.
 * `COMPACTION_DELAY_MS` postpones it, so a burst of appends is compacted once. With
 * `cachedSummaries` on, the alarm waits at least `CACHED_SUMMARY_GRACE_MS`: the gateway's turn
 * compacts through the cache once its answer is in, and the alarm, which has no channel to the
 * upstream, only takes what that left. A cache gone cold (`cold_cache`) is the moment itself: due
 * at once.
 */
function pendingDelayMs(env: Env, settings: SessionSettings, trigger: CompactionTrigger): number {
  if (trigger === "cold_cache") return 0;
  const delay = workerConfig(env).compactionDelayMs;
  return settings.cachedSummaries ? Math.max(delay, CACHED_SUMMARY_GRACE_MS) : delay;
}

/** A background compaction marked pending by this call (`new`) or before it (`pending`). */
export type PendingMark = "new" | "pending";

/**
 * What {@link markPending} decided, and the committed context's measure when it took one and wrote
 * nothing: the context is then as measured, and a caller in the same transaction need not measure it
 * again.
 */
export interface PendingDecision {
  mark: PendingMark | undefined;
  measure?: ContextMeasure;
  /** The session's row as the decision read it, when it marked nothing new (it is still current). */
  session?: SessionRow;
}

/**
 * {@link markPending}, with the measure it took (see {@link PendingDecision}). `settings`: the
 * session's, when the caller in the same transaction read them already.
 */
export function decidePending(
  scope: SessionScope,
  env: Env,
  trigger: CompactionTrigger,
  settings?: SessionSettings,
): PendingDecision {
  const { sql, store } = scope;
  const session = readSession(sql);
  if (session === undefined) return { mark: undefined };
  if (session.pendingTrigger !== null) return { mark: "pending", session };
  const current = settings ?? readSettings(sql);
  const measure = measureCommitted(scope, session, current);
  if (!measure.compactionDue || isCompactionExhausted(store, session, measure)) {
    return { mark: undefined, measure, session };
  }
  setPendingTrigger(sql, trigger, scope.now() + pendingDelayMs(env, current, trigger));
  return { mark: "new" };
}

/**
 * Marks a background compaction as pending (started by `trigger`) when the context is over the
 * trigger and none is. Returns `new` (marked now), `pending` (marked before) or undefined (none wanted).
 */
export function markPending(
  scope: SessionScope,
  env: Env,
  trigger: CompactionTrigger,
): PendingMark | undefined {
  return decidePending(scope, env, trigger).mark;
}
