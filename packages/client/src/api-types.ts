/**
 * @module api-types
 * The request and response bodies of the Condense HTTP API, as the Worker's
 * own route schemas define them (`apps/worker/src/api/schemas.ts`, the same
 * zod definitions that validate requests and generate `/openapi.json`). They
 * are printed from those schemas into `api-types.generated.ts` by
 * `scripts/api-types.ts`, never written by hand, and `tsc` fails when the two
 * differ (test/api-types-sync.ts); the published package needs no Worker code.
 */

import type {
  AppendRequestBody,
  CompactRequestBody,
  OverflowRequestBody,
  TranscriptResponseBody,
} from "./api-types.generated.js";

export type {
  AppendRequestBody,
  AppendResponseBody,
  CompactionEventBody,
  CompactionsResponseBody,
  CompactRequestBody,
  CompactResponseBody,
  ContextResponseBody,
  DeleteResponseBody,
  ErrorResponseBody,
  HealthResponseBody,
  ManualCompactRequestBody,
  ManualCompactResponseBody,
  MessageFormatName,
  OpenAPIDocumentBody,
  OverflowRequestBody,
  OverflowResponseBody,
  ResponsesCompactRequestBody,
  ResponsesCompactResponseBody,
  SessionSettingsBody,
  SessionStatusBody,
  SettingsPatchBody,
  ToolOutputResponseBody,
  TranscriptResponseBody,
} from "./api-types.generated.js";

/** A message as sent to the service: Chat Completions, Anthropic or Responses, per `format`. */
export type InputMessage = AppendRequestBody["messages"][number];

/** Options of the stateless `POST /v1/compact`. */
export type StatelessCompactOptions = NonNullable<CompactRequestBody["options"]>;

/** A provider error as `POST /overflow` takes it. */
export type ProviderErrorReport = OverflowRequestBody["error"];

/** One stored message of the original transcript. */
export type TranscriptEntry = TranscriptResponseBody["messages"][number];

/** What the provider reported for the last call (`usage.inputTokens`). */
export type UsageReport = NonNullable<AppendRequestBody["usage"]>;
