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

// ---------------------------------------------------------------------------------------------
// Issue 11 (memory and recall), written by hand from the shared contract until the routes land:
// after the merge these are regenerated from the Worker's schemas (scripts/api-types.ts) and this
// block goes. `MemoryEntry` mirrors @condense/core's (the client has no dependency on core;
// test/api-types-hand.ts fails `tsc` if the two differ).
// ---------------------------------------------------------------------------------------------

/** The kinds of memory entry: a fact, a preference, a constraint, a decision. */
export type MemoryKind = "fact" | "preference" | "constraint" | "decision";

/** One entry of the caller's memory (`@condense/core`'s `MemoryEntry`). */
export interface MemoryEntry {
  /** Stable id assigned by the service (`mem_…`). */
  id: string;
  text: string;
  kind: MemoryKind;
  /** The session the entry came from; null when written through the API without one. */
  sourceSession: string | null;
  /** The transcript seq in that session the entry came from, when known. */
  sourceSeq: number | null;
  /** ISO 8601 times. */
  createdAt: string;
  updatedAt: string;
}

/** One match of `GET /v1/sessions/{id}/search`. */
export interface SearchResult {
  seq: number;
  role: "system" | "user" | "assistant" | "tool";
  toolCallId: string | null;
  toolName: string | null;
  /** The matching text, matches marked «like this». */
  snippet: string;
  /** Higher is better. */
  score: number;
  /** Whether the message is still in the context, or was compacted away. */
  inContext: boolean;
  /** Whether its tool output was pruned from the context. */
  pruned: boolean;
}

/** `GET /v1/sessions/{id}/search`: best matches first. */
export interface SearchResponse {
  query: string;
  results: SearchResult[];
  /** False while the session's existing transcript is still being indexed (older messages may be missing). */
  indexing: { complete: boolean };
}

/** One of the caller's sessions, as `GET /v1/sessions` lists it. */
export interface SessionListItem {
  id: string;
  model: string | null;
  createdAt: string;
  lastActiveAt: string;
  messageCount: number;
  tokens: number;
  compactions: number;
}

/** `GET /v1/sessions`: one page, newest active first. */
export interface SessionListPage {
  sessions: SessionListItem[];
  /** Pass as `cursor` for the next page; null on the last. */
  nextCursor: string | null;
}

/** `GET /v1/memory`: one page of the caller's memories. */
export interface MemoryPage {
  memories: MemoryEntry[];
  nextCursor: string | null;
}

/** `POST /v1/memory`. */
export interface MemoryCreateBody {
  text: string;
  kind: MemoryKind;
  sourceSession?: string;
  sourceSeq?: number;
}

/** `PATCH /v1/memory/{memoryId}`: fields left out keep their value. */
export interface MemoryUpdateBody {
  text?: string;
  kind?: MemoryKind;
}

/** `DELETE /v1/memory/{memoryId}`. */
export interface MemoryDeleteResponse {
  deleted: true;
  id: string;
}

/** One match of `GET /v1/memory/search`. */
export interface MemorySearchResult {
  memory: MemoryEntry;
  snippet: string;
  score: number;
}

/** `GET /v1/memory/search`. */
export interface MemorySearchResponse {
  query: string;
  results: MemorySearchResult[];
}
