/**
 * @module @condense/test-servers
 * The fake model providers the tests of every package run against (private,
 * never published): a local server that answers model requests as a
 * handler scripts them, and the providers' documented request rules with
 * their own wording.
 */

export { contentText, isObject, type JsonObject, objects, text } from "./json.ts";
export {
  anthropicViolation,
  cacheControlViolation,
  MAX_CACHE_CONTROL_BLOCKS,
} from "./rules/anthropic-rules.ts";
export { chatViolation } from "./rules/chat-rules.ts";
export {
  callPairingViolation,
  inputItems,
  itemType,
  responsesViolation,
} from "./rules/responses-rules.ts";
export { openReasoning, sealReasoning, sign, verifies } from "./rules/signatures.ts";
export type { Violation } from "./rules/violation.ts";
export {
  type ControlHandler,
  type ControlReply,
  type FinishReason,
  lastUserText,
  type OpenAIApi,
  type OpenAIRequestBody,
  type OpenAIServer,
  type OpenAIServerHandler,
  type OpenAIServerOptions,
  type OpenAIServerReply,
  type ReceivedRequest,
  type RecordedRequest,
  requestText,
  startOpenAIServer,
  type ToolCallReply,
  templateHandler,
  templateSummary,
  type Usage,
} from "./server.ts";
