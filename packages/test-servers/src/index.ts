/**
 * @module @condense/test-servers
 * The fake model providers the tests of every package run against (private,
 * never published): one local server (`startTestServer`) that answers Chat
 * Completions, Responses and Anthropic Messages requests — JSON or streamed —
 * as a handler scripts them (`Reply`), the providers' documented request
 * rules and their own error wording, and the overflow errors of the
 * providers the engine must recognise. Tests script whichever harness serves
 * them with one `Scenario` object (`scenario.ts`).
 */

export { contentText, isObject, type JsonObject, objects, text } from "./json.ts";
export { anthropicMessages } from "./protocols/anthropic-messages.ts";
export { chatCompletions } from "./protocols/chat-completions.ts";
export {
  type GeminiWireOptions,
  geminiGenerateContent,
  geminiWire,
} from "./protocols/gemini-generate-content.ts";
export { openaiResponses } from "./protocols/openai-responses.ts";
export type {
  AnswerContext,
  ProtocolName,
  RenderedAnswer,
  WireProtocol,
} from "./protocols/wire.ts";
export {
  anthropicSumOverflow,
  OVERFLOW_PROVIDERS,
  type OverflowProvider,
  overflowBody,
} from "./provider-overflows.ts";
export {
  type Answer,
  type AnswerFields,
  answerOf,
  type FinishReason,
  type Reply,
  type ToolCallReply,
  type Usage,
} from "./reply.ts";
export { lastUserText, requestText } from "./request-text.ts";
export { cacheControlViolation, diagnosticsViolation } from "./rules/anthropic-rules.ts";
export { GEMINI_PLACEHOLDERS, geminiViolation } from "./rules/gemini-rules.ts";
export {
  breakpointModel,
  openaiCacheViolation,
  writtenBreakpoints,
} from "./rules/openai-cache-rules.ts";
export { callPairingViolation, inputItems, itemType } from "./rules/responses-rules.ts";
export { sealReasoning, sign } from "./rules/signatures.ts";
export type { Violation } from "./rules/violation.ts";
export {
  SCENARIO_HEADER,
  SCENARIO_NAME_HEADER,
  type Scenario,
  type ScenarioFields,
  scenarioBaseUrl,
  scenarioFromHeaders,
  scenarioFromModel,
  scenarioFromPath,
  scenarioHandler,
  scenarioHeaders,
  scenarioModel,
} from "./scenario.ts";
export {
  type Connection,
  type ControlHandler,
  type ControlReply,
  type Handler,
  PROTOCOLS,
  protocolOf,
  type ReceivedRequest,
  type RecordedRequest,
  type RequestBody,
  startTestServer,
  type TestServer,
  type TestServerOptions,
} from "./server.ts";
export { templateHandler, templateSummary } from "./template-summary.ts";
