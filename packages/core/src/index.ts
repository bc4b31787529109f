/**
 * @module @condense/core
 * Context-window compaction for long-running LLM agents: prune old tool
 * outputs, protect the head and the recent tail, summarize the middle, keep
 * every identifier exact, repair tool-call pairing, recognize overflow errors.
 */

export {
  type BilledRequest,
  type CacheHit,
  type CachePricing,
  cachePricingOf,
  PromptCacheBiller,
  priceRequest,
  type RequestBill,
  type SequenceBill,
} from "./billing/prompt-cache.js";
export {
  type Bill,
  type BillBasis,
  billTurns,
  type CacheMiss,
  type ProviderUsage,
  type RolledTurns,
  rollUpTurns,
  type ServedTurn,
  type SessionBill,
  type TurnEntry,
  type TurnTotals,
} from "./billing/turn-bill.js";
export { extractSummary } from "./compact/assemble.js";
export { compact } from "./compact/compact.js";
export type { CacheState } from "./compact/cost-policy.js";
export { isCutOutput } from "./compact/cut-output.js";
export { type FitOptions, type FitResult, fitContext } from "./compact/fit-context.js";
export { type ResolvedOptions, resolveOptions } from "./compact/options.js";
export { isPrunePlaceholder } from "./compact/prune.js";
export {
  type CachedSummaryTokens,
  cachedSummaryCostTokens,
  DEFAULT_OUTPUT_PRICE_RATIO,
  separateSummaryCostTokens,
} from "./compact/summarizer-cost.js";
export { summaryDigest } from "./compact/summary-anchor.js";
export { shouldCompact, type TriggerDecision } from "./compact/trigger.js";
export type {
  CompactInput,
  CompactionPolicy,
  CompactOptions,
  CompactResult,
  CutToolOutput,
  PrunedToolOutput,
  SummarizerFailure,
  Tier,
  WarningLevel,
} from "./compact/types.js";

export {
  CondenseError,
  type CondenseErrorCode,
  InvalidMessagesError,
  InvalidOptionsError,
  type MessageProblem,
  SummarizerError,
  type SummarizerFailureKind,
} from "./errors/condense-error.js";
export { isContextOverflowError, parseOverflowTokens } from "./errors/overflow.js";
export { parseRetryAfter } from "./errors/retry-after.js";
export {
  anthropicCacheMarkers,
  countAnthropicCacheMarkers,
} from "./formats/anthropic/cache-markers.js";
export { fromAnthropic, toAnthropic } from "./formats/anthropic/convert.js";
export {
  type CacheMarker,
  MAX_CACHE_MARKERS,
  type MarkerPlacement,
  openaiCacheMarkers,
} from "./formats/cache-markers.js";
export { fromCanonical, toCanonical, unsupportedParts } from "./formats/convert.js";
export {
  fromGemini,
  GEMINI_PLACEHOLDER_SIGNATURE,
  type GeminiContent,
  type GeminiRequest,
  toGemini,
} from "./formats/gemini/convert.js";
export { isOpaqueMessage } from "./formats/opaque.js";
export { fromResponses, toResponses } from "./formats/responses/convert.js";
export { type StableJsonOptions, stableJson } from "./formats/stable-json.js";
export { validateMessages } from "./formats/validate.js";
export { classifyStatement, deterministicFlush } from "./memory/deterministic-flush.js";
export { MEMORY_TOOL, MEMORY_TOOL_NAME } from "./memory/flush-prompt.js";
export {
  type FlushRequest,
  type FlushResult,
  MAX_FLUSH_OPERATIONS,
  MEMORY_TEXT_MAX_CHARS,
  normalizeMemoryText,
  type SkippedOperation,
} from "./memory/operations.js";
export {
  MEMORY_KINDS,
  type MemoryEntry,
  type MemoryKind,
  type MemoryOperation,
} from "./memory/types.js";
export {
  type CallIdState,
  type ResultKind,
  reusedCallMessage,
  ToolCallTracker,
  type ToolOutputKey,
  type ToolResultCall,
  toolResultCalls,
} from "./messages/call-ids.js";
export { messageText, toolCallInput, toolCallName } from "./messages/content.js";
export { isRecord } from "./messages/input-checks.js";
export {
  itemNestsTooDeep,
  MAX_ITEM_NESTING,
  MAX_MESSAGE_CONTENT_BYTES,
  MAX_NESTING,
  MESSAGE_ENVELOPE_BYTES,
  messageSize,
} from "./messages/limits.js";
export { parseMessages } from "./messages/parse.js";
export { INTERRUPTED_RESULT, isEmptyTurn, repairMessages } from "./messages/repair.js";
export { carriesNothing, type Sendable, sendableMessages } from "./messages/sendable.js";
export type {
  AudioFormat,
  AudioPart,
  ChatMessage,
  ContentPart,
  CustomToolCall,
  FilePart,
  FunctionToolCall,
  ImagePart,
  MessageContent,
  MessageFormat,
  Provider,
  Role,
  TextPart,
  ToolCall,
} from "./messages/types.js";
export { cacheLifetimeMs, isCacheCold } from "./models/cache-lifetime.js";
export { contextWindowFor, parseContextWindow } from "./models/context-window.js";
export {
  DEFAULT_PRICING,
  type ModelPricing,
  modelPricing,
  type PricingOverride,
  type PromptCaching,
} from "./models/pricing.js";
export {
  escapeRecalled,
  formatRecallAnswer,
  formatRecallError,
  parseRecallArguments,
  RECALL_DEFAULT_LIMIT,
  RECALL_DEFAULT_MAX_CHARS,
  RECALL_FENCE_CLOSE,
  RECALL_FENCE_OPEN,
  RECALL_MAX_LIMIT,
  RECALL_MAX_QUERY_CHARS,
  RECALL_MAX_TOOL_CALL_ID_CHARS,
  RECALL_TOOL_DESCRIPTION,
  RECALL_TOOL_NAME,
  type RecallAnswer,
  type RecallAnthropicTool,
  type RecallChatCompletionsTool,
  type RecallFormatOptions,
  type RecallParametersSchema,
  type RecallParseResult,
  type RecallRequest,
  type RecallResponsesTool,
  type RecallSearchHit,
  type RecallToolOutput,
  recallAnthropicTool,
  recallChatCompletionsTool,
  recalledContentText,
  recallParameters,
  recallResponsesTool,
} from "./recall/recall-tool.js";
export { extractiveSummarizer } from "./summary/extractive/extractive.js";
export { extractIdentifiers } from "./summary/ledger/identifiers.js";
export type { Ledger } from "./summary/ledger-types.js";
export {
  type CachedPromptAnswer,
  type CachedPromptSummarizerOptions,
  type CachedPromptTurn,
  cachedPromptSummarizer,
} from "./summary/llm/cached-prompt-summarizer.js";
export { containsSecret, withholdSecrets } from "./summary/redact.js";
export type {
  IdentifierPolicy,
  SummarizeRequest,
  SummarizeResult,
  Summarizer,
} from "./summary/summarizer.js";
export { SUMMARY_CLOSE, SUMMARY_OPEN, SUMMARY_SECTIONS } from "./summary/template.js";
export { countMessageTokens, countTokens, messageTokens } from "./tokens/count.js";
