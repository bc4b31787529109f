/**
 * @module session/compaction/exhaustion
 * Whether compaction already went as far as it can, so that it is not tried
 * again for nothing. A compaction whose result still triggers cannot do
 * better until more messages arrive (`exhausted_seq`: the last seq it saw).
 *
 * A request's fixed overhead (`gateway/plans/request-overhead`) can leave so little
 * of the window that no compaction reaches its target: the system prompt and
 * the newest messages, which are never compacted, fill what is left. Each new
 * turn would then be compacted again, the prompt's prefix changing on every
 * turn. So when the overhead is why a compaction fell short of its target
 * (without it, the result would have met the target), compaction waits until
 * the context has grown by a quarter of the window (without the overhead)
 * before it runs again, as far as it goes, and says so in its log line. The
 * context is over its budget meanwhile (its `warningLevel` says so); an
 * overflow the upstream reports still compacts at once.
 */

import type { ContextMeasure } from "../context/context-measure";
import type { MessageStore } from "../store/message-store";
import { isExhausted, type SessionRow } from "../store/session-record";

/** How a compaction that ended with `tokensAfter` (engine units) left the session. */
export type CompactionReach =
  /** Within its trigger: the next compaction comes when the context grows past it again. */
  | "within"
  /** Still over the trigger: nothing more can be done until more messages arrive. */
  | "as-far-as-it-goes"
  /** Short of its target because of the request's overhead: it waits for the context to grow. */
  | "crowded-by-overhead";

export function compactionReach(measure: ContextMeasure, tokensAfter: number): CompactionReach {
  const { overhead } = measure;
  if (
    overhead !== undefined &&
    tokensAfter > measure.engineTarget &&
    tokensAfter <= overhead.targetWithout
  ) {
    return "crowded-by-overhead";
  }
  return tokensAfter > measure.engineTrigger ? "as-far-as-it-goes" : "within";
}

/**
 * Whether compaction went as far as it can for the context as it is now (`measure`, of the
 * session's transcript up to `lastSeq`): nothing arrived since it ran, or the overhead crowds the
 * window and the context has not grown by `regrowthTokens` since.
 */
export function isCompactionExhausted(
  store: MessageStore,
  session: SessionRow,
  measure: ContextMeasure,
  lastSeq = session.messageCount,
): boolean {
  if (isExhausted(session, lastSeq)) return true;
  const { overhead } = measure;
  if (session.exhaustedSeq === null || overhead === undefined) return false;
  const grown = store.tokensAfter(session.exhaustedSeq).tokens;
  // What the context was when compaction stopped: crowded by the overhead, or by something else.
  const left = measure.engineTokens - grown;
  return left > measure.engineTarget && left <= overhead.targetWithout
    ? grown <= overhead.regrowthTokens
    : false;
}
