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
import type * as compact from "./schemas/compact.js";
import type * as meta from "./schemas/meta.js";
import type * as responsesCompact from "./schemas/responses-compact.js";
import type * as search from "./schemas/search.js";
import type * as sessions from "./schemas/sessions.js";
import type * as shared from "./schemas/shared.js";
import type * as userLists from "./schemas/user-lists.js";

export * from "./schemas/compact.js";
export * from "./schemas/gateway.js";
export * from "./schemas/meta.js";
export * from "./schemas/responses-compact.js";
export * from "./schemas/search.js";
export * from "./schemas/sessions.js";
export * from "./schemas/shared.js";
export * from "./schemas/user-lists.js";

// ---------------------------------------------------------------- inferred types for clients

export type ErrorResponseBody = z.infer<typeof shared.ErrorResponse>;
export type CompactRequestBody = z.input<typeof compact.CompactRequest>;
export type CompactResponseBody = z.infer<typeof compact.CompactResponse>;
export type AppendRequestBody = z.input<typeof sessions.AppendRequest>;
export type AppendResponseBody = z.infer<typeof sessions.AppendResponse>;
export type ContextResponseBody = z.infer<typeof sessions.ContextResponse>;
export type ManualCompactRequestBody = z.input<typeof sessions.ManualCompactRequest>;
export type ManualCompactResponseBody = z.infer<typeof sessions.ManualCompactResponse>;
export type OverflowRequestBody = z.input<typeof sessions.OverflowRequest>;
export type OverflowResponseBody = z.infer<typeof sessions.OverflowResponse>;
export type SessionSettingsBody = z.infer<typeof sessions.SessionSettings>;
export type SettingsPatchBody = z.input<typeof sessions.SettingsPatch>;
export type SessionStatusBody = z.infer<typeof sessions.SessionStatus>;
export type DeleteResponseBody = z.infer<typeof sessions.DeleteResponse>;
export type CompactionEventBody = z.infer<typeof sessions.CompactionEvent>;
export type CompactionsResponseBody = z.infer<typeof sessions.CompactionsResponse>;
export type SessionBillBody = z.infer<typeof sessions.SessionBill>;
export type ToolOutputResponseBody = z.infer<typeof sessions.ToolOutputResponse>;
export type TranscriptResponseBody = z.infer<typeof sessions.TranscriptResponse>;
export type SideRequestsResponseBody = z.infer<typeof sessions.SideRequestsResponse>;
export type SessionEventBody = z.infer<typeof sessions.SessionEvent>;
export type EventsResponseBody = z.infer<typeof sessions.EventsResponse>;
export type SideRequestResponseBody = z.infer<typeof sessions.SideRequestResponse>;
export type SearchQueryParams = z.input<typeof search.SearchQuery>;
export type SearchResultBody = z.infer<typeof search.SearchResult>;
export type SearchResponseBody = z.infer<typeof search.SearchResponse>;
export type ResponsesCompactRequestBody = z.input<typeof responsesCompact.ResponsesCompactRequest>;
export type ResponsesCompactResponseBody = z.infer<
  typeof responsesCompact.ResponsesCompactResponse
>;
export type HealthResponseBody = z.infer<typeof meta.HealthResponse>;
export type OpenAPIDocumentBody = z.infer<typeof meta.OpenAPIDocument>;
export type SessionListResponseBody = z.infer<typeof userLists.SessionListResponse>;
export type MemoryEntryBody = z.infer<typeof userLists.MemoryEntry>;
export type MemoryListResponseBody = z.infer<typeof userLists.MemoryListResponse>;
export type MemoryCreateRequestBody = z.input<typeof userLists.MemoryCreateRequest>;
export type MemoryPatchRequestBody = z.input<typeof userLists.MemoryPatchRequest>;
export type MemoryDeleteResponseBody = z.infer<typeof userLists.MemoryDeleteResponse>;
export type MemorySearchResponseBody = z.infer<typeof userLists.MemorySearchResponse>;
export type MessageFormatName = z.infer<typeof shared.MessageFormat>;
