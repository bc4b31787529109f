/**
 * @module api-types
 * The request and response bodies of the Condense HTTP API, as the Worker's
 * own route schemas define them (`apps/worker/src/api/schemas.ts`, the same
 * zod definitions that validate requests and generate `/openapi.json`). They
 * are printed from those schemas into `api-types.generated.ts` by
 * `scripts/api-types.ts`, never written by hand, and `typecheck` fails when
 * the two differ (`scripts/api-types.ts --check`); the published package
 * needs no Worker code.
 */

import type {
  AppendRequestBody,
  CompactRequestBody,
  MemoryCreateRequestBody,
  MemoryDeleteResponseBody,
  MemoryEntryBody,
  MemoryListResponseBody,
  MemoryPatchRequestBody,
  MemorySearchResponseBody,
  OverflowRequestBody,
  SearchResponseBody,
  SearchResultBody,
  SessionListResponseBody,
  TranscriptResponseBody,
} from "./generated/api-types.generated.js";

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
} from "./generated/api-types.generated.js";

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

/** The kinds of memory entry: a fact, a preference, a constraint, a decision. */
export type MemoryKind = MemoryEntryBody["kind"];

/** One entry of the caller's memory (`@condense/core`'s `MemoryEntry`; test/api-types-core.ts checks). */
export type MemoryEntry = MemoryEntryBody;

/** One match of `GET /v1/sessions/{id}/search` (the snippet's matches marked «like this»). */
export type SearchResult = SearchResultBody;

/** `GET /v1/sessions/{id}/search`: best matches first. */
export type SearchResponse = SearchResponseBody;

/** One of the caller's sessions, as `GET /v1/sessions` lists it. */
export type SessionListItem = SessionListResponseBody["sessions"][number];

/** `GET /v1/sessions`: one page, newest active first; `nextCursor` is null on the last. */
export type SessionListPage = SessionListResponseBody;

/** `GET /v1/memory`: one page of the caller's memories. */
export type MemoryPage = MemoryListResponseBody;

/** `POST /v1/memory`. */
export type MemoryCreateBody = MemoryCreateRequestBody;

/** `PATCH /v1/memory/{memoryId}`: fields left out keep their value. */
export type MemoryUpdateBody = MemoryPatchRequestBody;

/** `DELETE /v1/memory/{memoryId}`. */
export type MemoryDeleteResponse = MemoryDeleteResponseBody;

/** One match of `GET /v1/memory/search`. */
export type MemorySearchResult = MemorySearchResponseBody["results"][number];

/** `GET /v1/memory/search`. */
export type MemorySearchResponse = MemorySearchResponseBody;
