/**
 * @module session/compaction/pending
 * Whether a background compaction is wanted: the committed context is over
 * its trigger, compaction has not already gone as far as it can, and none is
 * pending yet. The mark is written in the caller's transaction; the object
 * sets the alarm that runs it once that transaction committed.
 */

import type { CompactionTrigger } from "../../api/compaction-trigger";
import { type ContextMeasure, measureCommitted } from "../context/context-measure";
import { readSession, type SessionRow, setPendingTrigger } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { readSettings, type SessionSettings } from "../store/settings";
import { isCompactionExhausted } from "./exhaustion";

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
  trigger: CompactionTrigger,
  settings?: SessionSettings,
): PendingDecision {
  const { sql, store } = scope;
  const session = readSession(sql);
  if (session === undefined) return { mark: undefined };
  if (session.pendingTrigger !== null) return { mark: "pending", session };
  const measure = measureCommitted(scope, session, settings ?? readSettings(sql));
  if (!measure.compactionDue || isCompactionExhausted(store, session, measure)) {
    return { mark: undefined, measure, session };
  }
  setPendingTrigger(sql, trigger);
  return { mark: "new" };
}

/**
 * Marks a background compaction as pending (started by `trigger`) when the context is over the
 * trigger and none is. Returns `new` (marked now), `pending` (marked before) or undefined (none wanted).
 */
export function markPending(
  scope: SessionScope,
  trigger: CompactionTrigger,
): PendingMark | undefined {
  return decidePending(scope, trigger).mark;
}
