/**
 * @module @condense/client
 * Typed client for the Condense service (context-window compaction for
 * long-running LLM agents), and `withCompaction`, which runs an `openai`
 * client's conversation on a Condense session. Fetch only: Node ≥ 22,
 * browsers, Deno, Bun and Workers.
 */

export type * from "./api-types.js";
export { Condense, type CondenseOptions, type StatelessCompactRequest } from "./client.js";
export { type ClientErrorCode, CondenseError } from "./errors.js";
export { describeProviderError } from "./provider-error.js";
export {
  type AppendOptions,
  type CompactOptions as SessionCompactOptions,
  type ContextOptions,
  SessionHandle,
  type TranscriptOptions,
} from "./session.js";
export type { CallOptions, FetchLike } from "./transport.js";
export {
  type CompactingChatCompletions,
  type CompactingOpenAI,
  type CompactingResponses,
  type RecoveryEvent,
  type WithCompactionOptions,
  withCompaction,
} from "./openai-compaction.js";
