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

/** How many of a content's characters its fingerprint reads, spread over the whole text. */
const FINGERPRINT_SAMPLES = 16;

/**
 * A number that two equal contents share: their length and some characters read at fixed
 * fractions of it. Cheap whatever the length (the runtime's own hash of a string, which a `Map`
 * takes of its key, reads every character of every message of every turn); it only chooses where
 * to look: entries are told apart by their whole texts.
 */
export function contentFingerprint(content: string): number {
  const { length } = content;
  let hash = length;
  if (length === 0) return hash;
  const step = Math.max(1, Math.floor(length / FINGERPRINT_SAMPLES));
  for (let at = 0; at < length; at += step)
    hash = Math.imul(hash ^ content.charCodeAt(at), 0x9e3779b1);
  return Math.imul(hash ^ content.charCodeAt(length - 1), 0x85ebca6b) >>> 0;
}

interface KeyedEntry<V> {
  key: MessageKey;
  value: V;
}

/**
 * A bounded, least-recently-used cache by message key, holding `maxChars` characters of keys at
 * most (an entry of more than an eighth of that is not kept). Entries are found by their content's
 * fingerprint and then compared whole (content, then the small fields), so a lookup reads each text
 * once, as a comparison, and never hashes it; the content is the text the request's parser made,
 * never copied. Hand-written, as `cache/text-keyed-cache` is: a cache library would be a dependency
 * for forty lines on a `Map`, and would hash its keys.
 */
export class MessageKeyedCache<V> {
  /** By content fingerprint; a `Map` keeps insertion order, the least recently used first. */
  readonly #entries = new Map<number, KeyedEntry<V>[]>();
  #chars = 0;

  constructor(readonly maxChars: number) {}

  #find(key: MessageKey, fingerprint: number): KeyedEntry<V> | undefined {
    const bucket = this.#entries.get(fingerprint);
    if (bucket === undefined) return undefined;
    this.#entries.delete(fingerprint);
    this.#entries.set(fingerprint, bucket);
    return bucket.find((entry) => entry.key.content === key.content && entry.key.head === key.head);
  }

  /** The value kept for `key`, which becomes the most recently used; undefined when none is. */
  get(key: MessageKey): V | undefined {
    return this.#find(key, contentFingerprint(key.content))?.value;
  }

  /** Keeps `value` for `key` (unless one is kept), evicting the least recently used beyond the bound. */
  set(key: MessageKey, value: V): void {
    const chars = key.content.length + key.head.length;
    if (chars > this.maxChars / 8) return;
    const fingerprint = contentFingerprint(key.content);
    if (this.#find(key, fingerprint) !== undefined) return;
    const bucket = this.#entries.get(fingerprint);
    const entry = { key, value };
    if (bucket === undefined) this.#entries.set(fingerprint, [entry]);
    else bucket.push(entry);
    this.#chars += chars;
    for (const [oldest, entries] of this.#entries) {
      if (this.#chars <= this.maxChars) break;
      this.#entries.delete(oldest);
      for (const { key: evicted } of entries) {
        this.#chars -= evicted.content.length + evicted.head.length;
      }
    }
  }
}
