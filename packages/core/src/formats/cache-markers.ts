/**
 * @module formats/cache-markers
 * Prompt-cache markers (`cache_control`, Anthropic's breakpoints; OpenRouter
 * and LiteLLM take them on Chat Completions content parts too) belong to the
 * request that sent them, never to storage: the converters leave them out of
 * canonical messages, and a caller that renders canonical messages for a
 * request places that request's markers again, by canonical message index.
 *
 * Placing takes the markers in the caller's order of importance: each lands
 * on a block of its message (the last one when the message has fewer), a
 * block takes one marker (the first that names it), and no more than `slots`
 * land, so a request never carries more than the provider takes (Anthropic:
 * 4 blocks with `cache_control`, counting `tools` and `system`).
 *
 * This module reads and places them on Chat Completions content parts;
 * `formats/anthropic/cache-markers` on Anthropic blocks.
 */

import { field, isRecord } from "../messages/input-checks.js";

/** The most blocks with `cache_control` Anthropic takes in one request (tools, system and messages). */
export const MAX_CACHE_MARKERS = 4;

/** A cache marker on a block of a canonical message. */
export interface CacheMarker {
  /** Index of the canonical message it marks. */
  message: number;
  /** Which of that message's blocks (content parts) carries it; past the last, the last one. */
  block: number;
  /** The marker as the request had it, e.g. `{ "type": "ephemeral", "ttl": "1h" }`. */
  cacheControl: Record<string, unknown>;
}

/** The options of a rendering that places cache markers. */
export interface MarkerPlacement {
  /** Markers by canonical message index, most important first. */
  cacheMarkers: readonly CacheMarker[];
  /** How many may land (default {@link MAX_CACHE_MARKERS}). */
  slots?: number;
}

/** The markers a block carries, if it is an object with an object `cache_control`. */
export function markerOf(block: unknown): Record<string, unknown> | undefined {
  if (!isRecord(block)) return undefined;
  const marker = field(block, "cache_control");
  return isRecord(marker) ? marker : undefined;
}

/**
 * The markers of a Chat Completions request's `messages` (unchecked input): content parts carrying
 * `cache_control`, by message index (canonical messages are the request's, one for one) and part.
 */
export function openaiCacheMarkers(messages: readonly unknown[]): CacheMarker[] {
  const markers: CacheMarker[] = [];
  messages.forEach((message, index) => {
    if (!isRecord(message)) return;
    const content = field(message, "content");
    if (!Array.isArray(content)) return;
    content.forEach((part: unknown, block) => {
      const cacheControl = markerOf(part);
      if (cacheControl !== undefined) markers.push({ message: index, block, cacheControl });
    });
  });
  return markers;
}

/**
 * The markers that land, in order of importance: at most `slots`, one per target. `target` names
 * where a marker lands (undefined: nowhere it could).
 */
export function chooseMarkers<T>(
  placement: MarkerPlacement,
  target: (marker: CacheMarker) => T | undefined,
): Array<{ marker: CacheMarker; at: T }> {
  const slots = Math.max(0, placement.slots ?? MAX_CACHE_MARKERS);
  const chosen: Array<{ marker: CacheMarker; at: T }> = [];
  const taken = new Set<string>();
  for (const marker of placement.cacheMarkers) {
    if (chosen.length >= slots) break;
    const at = target(marker);
    if (at === undefined) continue;
    const key = JSON.stringify(at);
    if (taken.has(key)) continue;
    taken.add(key);
    chosen.push({ marker, at });
  }
  return chosen;
}

/**
 * Rendered Chat Completions `messages` (one per canonical message) with the markers placed on
 * content parts: string content becomes one text part to carry one; a message without content (an
 * assistant message that only calls tools) passes its marker to the nearest earlier message that
 * has some. Messages are copied where a marker lands, never modified.
 */
export function placeOpenAIMarkers(messages: unknown[], placement: MarkerPlacement): unknown[] {
  const hasContent = (index: number): boolean => {
    const message = messages[index];
    if (!isRecord(message)) return false;
    const content = field(message, "content");
    return (typeof content === "string" && content !== "") || Array.isArray(content);
  };
  const chosen = chooseMarkers(placement, (marker) => {
    let index = Math.min(marker.message, messages.length - 1);
    while (index >= 0 && !hasContent(index)) index--;
    if (index < 0) return undefined;
    const message = messages[index] as Record<string, unknown>;
    const content = field(message, "content");
    const parts = Array.isArray(content) ? content.length : 1;
    return { index, part: Math.max(0, Math.min(marker.block, parts - 1)) };
  });
  if (chosen.length === 0) return messages;
  const out = [...messages];
  for (const { marker, at } of chosen) {
    const message = out[at.index] as Record<string, unknown>;
    const content = field(message, "content");
    const parts: unknown[] = Array.isArray(content)
      ? [...content]
      : [{ type: "text", text: content }];
    const part = parts[at.part];
    if (isRecord(part)) parts[at.part] = { ...part, cache_control: marker.cacheControl };
    out[at.index] = { ...message, content: parts };
  }
  return out;
}
