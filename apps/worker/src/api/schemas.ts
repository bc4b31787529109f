/**
 * @module api/schemas
 * Every request and response body of the HTTP API as zod schemas, one module
 * per part of the API under `api/schemas/`. The same definitions validate
 * requests and generate `GET /openapi.json`, and their inferred types, below,
 * are exported for the typed client (`import type`): this module is the
 * package's `./api` export, which `packages/client/scripts/api-types.ts`
 * prints the types of. Its imports name their `.js` files because the client
 * type-checks it under NodeNext resolution, where an extensionless import fails.
 */

import type { z } from "@hono/zod-openapi";
import type { CompactRequest, CompactResponse } from "./schemas/compact.js";
import type { HealthResponse, OpenAPIDocument } from "./schemas/meta.js";
import type {
  ResponsesCompactRequest,
  ResponsesCompactResponse,
} from "./schemas/responses-compact.js";
import type { SearchQuery, SearchResponse, SearchResult } from "./schemas/search.js";
import type {
  AppendRequest,
  AppendResponse,
  CompactionEvent,
  CompactionsResponse,
  ContextResponse,
  DeleteResponse,
  ManualCompactRequest,
  ManualCompactResponse,
  OverflowRequest,
  OverflowResponse,
  SessionSettings,
  SessionStatus,
  SettingsPatch,
  ToolOutputResponse,
  TranscriptResponse,
} from "./schemas/sessions.js";
import type { ErrorResponse, MessageFormat } from "./schemas/shared.js";
import type {
  MemoryCreateRequest,
  MemoryDeleteResponse,
  MemoryEntry,
  MemoryListResponse,
  MemoryPatchRequest,
  MemorySearchResponse,
  SessionListResponse,
} from "./schemas/user-lists.js";

export * from "./schemas/compact.js";
export * from "./schemas/gateway.js";
export * from "./schemas/meta.js";
export * from "./schemas/responses-compact.js";
export * from "./schemas/search.js";
export * from "./schemas/sessions.js";
export * from "./schemas/shared.js";
export * from "./schemas/user-lists.js";

// ---------------------------------------------------------------- inferred types for clients

export type ErrorResponseBody = z.infer<typeof ErrorResponse>;
export type CompactRequestBody = z.input<typeof CompactRequest>;
export type CompactResponseBody = z.infer<typeof CompactResponse>;
export type AppendRequestBody = z.input<typeof AppendRequest>;
export type AppendResponseBody = z.infer<typeof AppendResponse>;
export type ContextResponseBody = z.infer<typeof ContextResponse>;
export type ManualCompactRequestBody = z.input<typeof ManualCompactRequest>;
export type ManualCompactResponseBody = z.infer<typeof ManualCompactResponse>;
export type OverflowRequestBody = z.input<typeof OverflowRequest>;
export type OverflowResponseBody = z.infer<typeof OverflowResponse>;
export type SessionSettingsBody = z.infer<typeof SessionSettings>;
export type SettingsPatchBody = z.input<typeof SettingsPatch>;
export type SessionStatusBody = z.infer<typeof SessionStatus>;
export type DeleteResponseBody = z.infer<typeof DeleteResponse>;
export type CompactionEventBody = z.infer<typeof CompactionEvent>;
export type CompactionsResponseBody = z.infer<typeof CompactionsResponse>;
export type ToolOutputResponseBody = z.infer<typeof ToolOutputResponse>;
export type TranscriptResponseBody = z.infer<typeof TranscriptResponse>;
export type SearchQueryParams = z.input<typeof SearchQuery>;
export type SearchResultBody = z.infer<typeof SearchResult>;
export type SearchResponseBody = z.infer<typeof SearchResponse>;
export type ResponsesCompactRequestBody = z.input<typeof ResponsesCompactRequest>;
export type ResponsesCompactResponseBody = z.infer<typeof ResponsesCompactResponse>;
export type HealthResponseBody = z.infer<typeof HealthResponse>;
export type OpenAPIDocumentBody = z.infer<typeof OpenAPIDocument>;
export type SessionListResponseBody = z.infer<typeof SessionListResponse>;
export type MemoryEntryBody = z.infer<typeof MemoryEntry>;
export type MemoryListResponseBody = z.infer<typeof MemoryListResponse>;
export type MemoryCreateRequestBody = z.input<typeof MemoryCreateRequest>;
export type MemoryPatchRequestBody = z.input<typeof MemoryPatchRequest>;
export type MemoryDeleteResponseBody = z.infer<typeof MemoryDeleteResponse>;
export type MemorySearchResponseBody = z.infer<typeof MemorySearchResponse>;
export type MessageFormatName = z.infer<typeof MessageFormat>;
