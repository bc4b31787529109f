/**
 * @module session/memory-context
 * The user's memories in a session's context (setting `memory`): the entries
 * most relevant to the session's recent text, fetched from the user's object
 * by RPC, as one fenced message (`user/memory-block`) within `memoryTokens`
 * for the session's model. The message is inserted and counted like a pinned
 * message (after the leading system messages and the pinned ones). A failure
 * to reach the user's object never fails the context: it is served without
 * memories, and says so.
 */

import { type ChatMessage, type MemoryEntry, messageText, messageTokens } from "@condense/core";
import { logLine } from "../log/log-lines";
import { memoryMessage } from "../user/memory-block";
import type { MessageStore } from "./message-store";
import { requireSession, type SessionKey } from "./session-record";
import { modelFor, readSettings, type SessionSettings } from "./settings";

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
    logLine({ type: "memory_fetch_failed", error: String(error) });
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

/**
 * With the `memory` setting on, the user's memories for the context of the session of `key`, from
 * `source` (the user's object); never a failure (`memoryInsert`). Undefined with the setting off.
 */
export async function memoryFor(
  sql: SqlStorage,
  store: MessageStore,
  key: SessionKey,
  source: MemorySource,
  defaultModel: string | undefined,
): Promise<MemoryInsert | undefined> {
  const settings = readSettings(sql);
  if (!settings.memory) return undefined;
  const session = requireSession(sql, key);
  const model = modelFor(settings, session.last_model, defaultModel);
  return memoryInsert(
    source,
    recentText(store, session.message_count),
    settings.memoryTokens,
    model,
  );
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
