/**
 * @module @condense/client
 * Typed client for the Condense service (context-window compaction for
 * long-running LLM agents); `withCompaction`, which runs an `openai` or
 * Anthropic client's conversation on a Condense session; and
 * `condenseMiddleware`, the same for the AI SDK's `wrapLanguageModel`. Fetch
 * only, no runtime dependency: Node ≥ 22, browsers, Deno, Bun and Workers.
 */

export {
  type CondenseMiddlewareOptions,
  condenseMiddleware,
} from "./ai-sdk/middleware.js";
export type { CompactingAnthropic, CompactingMessages } from "./anthropic-compaction.js";
export type * from "./api-types.js";
export {
  Condense,
  type CondenseOptions,
  type SessionsOptions,
  type StatelessCompactRequest,
} from "./client.js";
export type { RecoveryEvent } from "./conversation.js";
export { type ClientErrorCode, CondenseApiError } from "./errors.js";
// The recall tool's definition, parsing and formatting: the service's own (`@condense/core`'s).
export * from "./generated/recall-tool.generated.js";
export type {
  MemoryApi,
  MemoryListOptions,
  MemorySearchOptions,
} from "./memory.js";
export type {
  CompactingChatCompletions,
  CompactingOpenAI,
  CompactingResponses,
} from "./openai-compaction.js";
export { describeProviderError } from "./provider-error.js";
export {
  type AnswerRecallOptions,
  answerRecall,
  type RecallCall,
  recallAnthropicResult,
  recallChatCompletionsResult,
  recallResponsesResult,
} from "./recall.js";
export {
  type AppendOptions,
  type ContextOptions,
  type ManualCompactOptions,
  type SearchOptions,
  SessionHandle,
  type TranscriptOptions,
} from "./session.js";
export type { SessionLock } from "./session-lock.js";
export type { CallOptions, FetchLike } from "./transport.js";
export { type WithCompactionOptions, withCompaction } from "./with-compaction.js";
