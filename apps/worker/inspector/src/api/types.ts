/**
 * @module api/types
 * The shapes the inspector reads, under the names the views use:
 * `@condense/client`'s types, generated from the Worker's own zod schemas
 * (type-only imports: nothing of them is bundled).
 */

export type {
  CompactionEventBody as CompactionEvent,
  CompactionsResponseBody as CompactionList,
  ContextResponseBody as ContextResponse,
  MemoryEntry,
  MemoryPage as MemoryListPage,
  SearchResult as SearchMatch,
  SessionListPage,
  SessionSettingsBody as SessionSettings,
  SessionStatusBody as SessionStatus,
  TranscriptEntry,
} from "@condense/client";

/** A Chat Completions message as the API serves it (transcript entries and `/context`). */
export interface ChatLike {
  role: string;
  content?: unknown;
  name?: string;
  tool_calls?: unknown[];
  tool_call_id?: string;
}
