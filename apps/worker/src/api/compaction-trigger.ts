/**
 * @module api/compaction-trigger
 * What started a compaction (the glossary's trigger): a closed set, so a
 * misspelt trigger fails the type check instead of reaching a log line, a
 * stored pending mark or a compaction event.
 */

export type CompactionTrigger =
  /** An append the policy says to compact after (run in the background, by the alarm). */
  | "append"
  /** A settings update that left the context over its trigger (in the background). */
  | "settings"
  /** The alarm found a pending compaction without its trigger (marked before triggers were stored). */
  | "alarm"
  /** `GET /context` over window − reserve. */
  | "context"
  /** A gateway turn over window − reserve. */
  | "gateway"
  /** `POST /compact`. */
  | "manual"
  /** `POST /overflow`: a provider refused the context. */
  | "overflow"
  /** The alarm found the prompt cache gone cold past the trigger: compacting then costs no bust. */
  | "cold_cache";
