/**
 * @module session/context/memory-context
 * The user's memories in a session's context (setting `memory`): the entries
 * most relevant to the session's recent text, fetched from the user's object
 * by RPC, as one fenced message (`user/memory-block`) within `memoryTokens`
 * for the session's model. The message is inserted and counted like a pinned
 * message (after the leading system messages and the pinned ones). A failure
 * to reach the user's object never fails the context: it is served without
 * memories, and says so.
 */

import { type ChatMessage, type MemoryEntry, messageText, messageTokens } from "@condense/core";
import { errorFields, logLine } from "../../log/log-lines";
import { memoryMessage } from "../../user/memory-block";
import type { MessageStore } from "../store/message-store";
import {
  requireSession,
  type SessionKey,
  type SessionRow,
  writeSession,
} from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { modelFor, readSettings, type SessionSettings } from "../store/settings";
import { readViewState } from "../store/view-state";

/** What `/context` reports about the memory block (absent when the setting is off). */
export interface MemoryInsert {
  status: "included" | "unavailable";
  entries: number;
  tokens: number;
  message?: ChatMessage;
}

/** How much of the session's end ranks the memories: its last messages' text, at most this long. */
const RECENT_MESSAGES = 8;
const RECENT_CHARS = 4000;

/** The text of the session's last user and assistant messages, the end kept when it is long. */
export function recentText(store: MessageStore, lastSeq: number): string {
  const rows = store.readTranscript(Math.max(0, lastSeq - RECENT_MESSAGES));
  const text = rows
    .filter((row) => row.role === "user" || row.role === "assistant")
    .map((row) => messageText(row.message))
    .join("\n");
  return text.length <= RECENT_CHARS ? text : text.slice(text.length - RECENT_CHARS);
}

/** The part of the user's object this module calls. */
export interface MemorySource {
  relevantMemories(query: string, budgetTokens: number): Promise<MemoryEntry[]>;
}

/**
 * The memory block for a context: the ranked entries the user's object returns, trimmed from the
 * least relevant until the whole message fits `budgetTokens` for `model`.
 */
export async function memoryInsert(
  source: MemorySource,
  query: string,
  budgetTokens: number,
  model: string,
): Promise<MemoryInsert> {
  let entries: MemoryEntry[];
  try {
    entries = await source.relevantMemories(query, budgetTokens);
  } catch (error) {
    logLine({ type: "memory_fetch_failed", level: "warn", ...errorFields(error) });
    return { status: "unavailable", entries: 0, tokens: 0 };
  }
  // The user's object measures with its own tokenizer; the session's model has the last word.
  let message = memoryMessage(entries);
  let tokens = message === undefined ? 0 : messageTokens(message, model);
  while (message !== undefined && tokens > budgetTokens) {
    entries = entries.slice(0, -1);
    message = memoryMessage(entries);
    tokens = message === undefined ? 0 : messageTokens(message, model);
  }
  return {
    status: "included",
    entries: entries.length,
    tokens,
    ...(message !== undefined ? { message } : {}),
  };
}

/** The block as frozen: the budget it was chosen within, and what was inserted. */
interface FrozenBlock {
  budget: number;
  insert: MemoryInsert;
}

/** The block frozen for the view of `compactionId` within `budget`, if there is one. */
function frozenBlock(
  session: SessionRow,
  compactionId: number,
  budget: number,
): MemoryInsert | undefined {
  if (session.memoryBlock === null || session.memoryBlockCompaction !== compactionId) {
    return undefined;
  }
  const frozen = JSON.parse(session.memoryBlock) as FrozenBlock;
  return frozen.budget === budget ? frozen.insert : undefined;
}

/**
 * With the `memory` setting on, the user's memories for the context of the session of `key`, from
 * `source` (the user's object); never a failure (`memoryInsert`). Undefined with the setting off.
 * The block chosen for the current view is served again until a compaction replaces the view (or
 * `memoryTokens` changes); a block that could not be fetched is not kept.
 */
export async function memoryFor(
  scope: SessionScope,
  key: SessionKey,
  source: MemorySource,
): Promise<MemoryInsert | undefined> {
  const { sql, store, defaultModel } = scope;
  const settings = readSettings(sql);
  if (!settings.memory) return undefined;
  const session = requireSession(sql, key);
  const compactionId = readViewState(sql)?.compactionId ?? 0;
  const frozen = frozenBlock(session, compactionId, settings.memoryTokens);
  if (frozen !== undefined) return frozen;
  const model = modelFor(settings, session.lastModel, defaultModel);
  const insert = await memoryInsert(
    source,
    recentText(store, session.messageCount),
    settings.memoryTokens,
    model,
  );
  // Chosen for the view read before the fetch: a compaction committed meanwhile makes it stale.
  if (insert.status === "included") {
    const block: FrozenBlock = { budget: settings.memoryTokens, insert };
    writeSession(
      sql,
      "UPDATE condense_session SET memory_block = ?, memory_block_compaction = ? WHERE id = 1",
      JSON.stringify(block),
      compactionId,
    );
  }
  return insert;
}

/**
 * The settings a context with `memory` in it is measured with: the memory block is placed and
 * counted as one more pinned message, in place of the room the `memory` setting keeps for it.
 */
export function withMemoryPinned(
  settings: SessionSettings,
  memory: MemoryInsert | undefined,
): SessionSettings {
  return memory?.message === undefined
    ? settings
    : { ...settings, memory: false, pinned: [...settings.pinned, memory.message] };
}
