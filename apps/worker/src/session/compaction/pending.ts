/**
 * @module session/compaction/pending
 * Whether a background compaction is wanted: the committed context is over
 * its trigger, compaction has not already gone as far as it can, and none is
 * pending yet. The mark is written in the caller's transaction; the object
 * sets the alarm that runs it once that transaction committed.
 */

import type { CompactionTrigger } from "../../api/compaction-trigger";
import { type ContextMeasure, measureCommitted } from "../context/context-view";
import type { MessageStore } from "../store/message-store";
import { readSession, setPendingTrigger } from "../store/session-record";
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
export function decidePending(
  sql: SqlStorage,
  store: MessageStore,
  defaultModel: string | undefined,
  trigger: CompactionTrigger,
): PendingDecision {
  const session = readSession(sql);
  if (session === undefined) return { mark: undefined };
  if (session.pending_trigger !== null) return { mark: "pending" };
  const measure = measureCommitted(sql, store, session, readSettings(sql), defaultModel);
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
  sql: SqlStorage,
  store: MessageStore,
  defaultModel: string | undefined,
  trigger: CompactionTrigger,
): PendingMark | undefined {
  return decidePending(sql, store, defaultModel, trigger).mark;
}
