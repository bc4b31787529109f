/**
 * @module messages/message-key
 * The isolate's caches of what the gateway derives from the messages an agent
 * resends every turn (their hashes: `messages/history-hash`; their tokens:
 * `messages/token-counts`), found by a message's key. Two messages with the
 * same key have the same role, name, tool calls, tool-call id and content, so
 * everything derived from those is the same. Provider data is left out:
 * neither the hash nor the count reads it.
 */

import type { ChatMessage } from "@condense/core";

/** A message's key in two texts: its content (the bulk of it) and its small fields. */
export interface MessageKey {
  /** The content: a string as it is, anything else as JSON. */
  content: string;
  /** The small fields as the runtime's JSON, with whether `content` is the string itself. */
  head: string;
}

/**
 * The key of `message`. The content is not joined with the rest into one text: a history's texts are
 * a request's whole body, and the joined copy of every one of them, made and hashed every turn, cost
 * more than the rest of the turn's own work (`bench/gateway-latency`).
 */
export function messageKey(message: ChatMessage): MessageKey {
  const { content } = message;
  const isText = typeof content === "string";
  const head = JSON.stringify([
    message.role,
    message.name ?? null,
    message.tool_calls ?? null,
    message.tool_call_id ?? null,
    isText,
  ]);
  return { content: isText ? content : JSON.stringify(content ?? null), head };
}

/**
 * A bounded, least-recently-used cache by message key: by content, then by the small fields, holding
 * `maxChars` characters of keys at most (an entry of more than an eighth of that is not kept). The
 * content is looked up as the text the request's parser made, never copied. Hand-written, as
 * `cache/text-keyed-cache` is: a cache library would be a dependency for thirty lines on a `Map`.
 */
export class MessageKeyedCache<V> {
  /** By content, then by head; a `Map` keeps insertion order, the least recently used first. */
  readonly #entries = new Map<string, Map<string, V>>();
  #chars = 0;

  constructor(readonly maxChars: number) {}

  /** The value kept for `key`, whose content becomes the most recently used; undefined when none is. */
  get(key: MessageKey): V | undefined {
    const byHead = this.#entries.get(key.content);
    if (byHead === undefined) return undefined;
    this.#entries.delete(key.content);
    this.#entries.set(key.content, byHead);
    return byHead.get(key.head);
  }

  /** Keeps `value` for `key` (unless one is kept), evicting the least recently used beyond the bound. */
  set(key: MessageKey, value: V): void {
    if (key.content.length + key.head.length > this.maxChars / 8) return;
    let byHead = this.#entries.get(key.content);
    if (byHead?.has(key.head)) return;
    if (byHead === undefined) {
      byHead = new Map();
      this.#entries.set(key.content, byHead);
      this.#chars += key.content.length;
    }
    byHead.set(key.head, value);
    this.#chars += key.head.length;
    for (const [content, heads] of this.#entries) {
      if (this.#chars <= this.maxChars) break;
      this.#entries.delete(content);
      this.#chars -= content.length;
      for (const head of heads.keys()) this.#chars -= head.length;
    }
  }
}
