/**
 * @module messages/message-key
 * A text that stands for a canonical message in the isolate's caches of what
 * the gateway derives from the messages an agent resends every turn (their
 * hashes: `messages/history-hash`; their tokens: `messages/token-counts`).
 * Two messages with the same key have the same role, name, tool calls,
 * tool-call id and content, so everything derived from those is the same.
 * Provider data is left out: neither the hash nor the count reads it.
 */

import type { ChatMessage } from "@condense/core";

/**
 * The key of `message`: the small fields as the runtime's JSON (which never holds a raw line
 * break), then a line break, then the content, a string as it is and anything else as JSON.
 * Escaping the whole message as JSON cost more than the lookups themselves (a tool output is full
 * of quotes and line breaks).
 */
export function messageKey(message: ChatMessage): string {
  const { content } = message;
  const isText = typeof content === "string";
  const head = JSON.stringify([
    message.role,
    message.name ?? null,
    message.tool_calls ?? null,
    message.tool_call_id ?? null,
    isText,
  ]);
  return `${head}\n${isText ? content : JSON.stringify(content ?? null)}`;
}
