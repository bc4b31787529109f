/**
 * @module api/types
 * The shapes the inspector reads, typed by the Worker's own zod schemas
 * (type-only imports, so nothing of zod is bundled), under the names the
 * views use.
 */

export type {
  CompactionEventBody as CompactionEvent,
  ContextResponseBody as ContextResponse,
  MemoryEntryBody as MemoryEntry,
  MemoryListResponseBody as MemoryListPage,
  SearchResponseBody as SearchResponse,
  SearchResultBody as SearchMatch,
  SessionListResponseBody as SessionListPage,
  SessionSettingsBody as SessionSettings,
  SessionStatusBody as SessionStatus,
  ToolOutputResponseBody as ToolOutput,
  TranscriptResponseBody as TranscriptPage,
} from "../../../src/api/schemas.ts";

import type {
  CompactionsResponseBody,
  SessionListResponseBody,
  TranscriptResponseBody,
} from "../../../src/api/schemas.ts";

export type CompactionList = CompactionsResponseBody;
/** One of the caller's sessions (`GET /v1/sessions`). */
export type SessionSummary = SessionListResponseBody["sessions"][number];
export type TranscriptEntry = TranscriptResponseBody["messages"][number];

/** A Chat Completions message as the API serves it (transcript entries and `/context`). */
export interface ChatLike {
  role: string;
  content?: unknown;
  name?: string;
  tool_calls?: unknown[];
  tool_call_id?: string;
}
