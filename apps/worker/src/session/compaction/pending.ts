/**
 * @module session/compaction/pending
 * Whether a background compaction is wanted: the committed context is over
 * its trigger, compaction has not already gone as far as it can, and none is
 * pending yet. The mark is written in the caller's transaction; the object
 * sets the alarm that runs it once that transaction committed.
 */

import type { CompactionTrigger } from "../../api/compaction-trigger";
import { type ContextMeasure, measureCommitted } from "../context/context-measure";
import { readSession, setPendingTrigger } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { readSettings } from "../store/settings";
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
}

/** {@link markPending}, with the measure it took (see {@link PendingDecision}). */
export function decidePending(scope: SessionScope, trigger: CompactionTrigger): PendingDecision {
  const { sql, store } = scope;
  const session = readSession(sql);
  if (session === undefined) return { mark: undefined };
  if (session.pendingTrigger !== null) return { mark: "pending" };
  const measure = measureCommitted(scope, session, readSettings(sql));
  if (!measure.compactionDue || isCompactionExhausted(store, session, measure)) {
    return { mark: undefined, measure };
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
