/**
 * @module api/types
 * The shapes the inspector reads. The routes that exist are typed by the
 * Worker's own zod schemas (type-only imports, so nothing of zod is bundled);
 * the routes of the memory-and-recall work (session list, search, memory)
 * are typed here, and read through `api/list-data` until they land.
 */

export type {
  CompactionEventBody as CompactionEvent,
  ContextResponseBody as ContextResponse,
  SessionSettingsBody as SessionSettings,
  SessionStatusBody as SessionStatus,
  ToolOutputResponseBody as ToolOutput,
  TranscriptResponseBody as TranscriptPage,
} from "../../../src/api/schemas.ts";

import type { CompactionsResponseBody, TranscriptResponseBody } from "../../../src/api/schemas.ts";

export type CompactionList = CompactionsResponseBody;
export type TranscriptEntry = TranscriptResponseBody["messages"][number];

/** A Chat Completions message as the API serves it (transcript entries and `/context`). */
export interface ChatLike {
  role: string;
  content?: unknown;
  name?: string;
  tool_calls?: unknown[];
  tool_call_id?: string;
}

/** One of the caller's sessions (`GET /v1/sessions`). */
export interface SessionSummary {
  id: string;
  model: string | null;
  createdAt: string | null;
  lastActiveAt: string | null;
  messageCount: number | null;
  /** Tokens of the current context. */
  tokens: number | null;
  contextWindow: number | null;
  compactions: number | null;
}

/** A page of the session list and how to ask for the next one. */
export interface SessionListPage {
  sessions: SessionSummary[];
  /** The query parameter and value that fetch the next page; null on the last page. */
  next: { param: string; value: string } | null;
}

/** A recall match (`GET /v1/sessions/{id}/search`). */
export interface SearchMatch {
  seq: number;
  role: string;
  toolCallId: string | null;
  toolName: string | null;
  /** The matching text with the match marked (see `model/snippet`). */
  snippet: string;
  /** Whether the message is still in the context, or was compacted away. */
  inContext: boolean | null;
}

/** A memory of the user (`GET /v1/memory`). */
export interface MemoryEntry {
  id: string;
  text: string;
  kind: string | null;
  sourceSession: string | null;
  sourceSeq: number | null;
  createdAt: string | null;
  updatedAt: string | null;
}
