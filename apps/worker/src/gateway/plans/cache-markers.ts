/**
 * @module gateway/plans/cache-markers
 * Prompt-cache markers (`cache_control`) belong to the request, not to
 * storage. Core leaves them out of canonical messages; when the gateway sends
 * a context in place of a request's history, this decides where the markers
 * the client sent with this request go:
 * - a marker on a message the context holds stays on it (on the same block);
 * - a marker on a message compaction took moves to the nearest message kept
 *   before the next one still there (after a compaction: the end of the view,
 *   which now stands for it);
 * - after a compaction, one breakpoint marks the end of the stable prefix
 *   (system, pinned messages, the compacted view: after its summary), which
 *   stays the same until the next compaction, so the following turns read it
 *   from the cache; it copies the TTL of the marker after it (a longer TTL
 *   must come first);
 * - and one marks the end of the head (the messages before the summary, which
 *   every compaction keeps as they were), so the turn after the next
 *   compaction reads the head from the cache rather than writing it again;
 * - never more blocks than Anthropic takes (4, counting the request's `tools`
 *   and a top-level `cache_control`, which are forwarded untouched): the
 *   newest client marker first, then the prefix breakpoint, then the other
 *   client markers, newest first, then the head's when a block is left (a
 *   client that marks its system prompt has most of the head cached already,
 *   and its marker may serve other sessions with the same prompt).
 * A request that carries no marker gets none: caching stays the client's
 * choice (a write costs more than an uncached read). Responses requests have
 * no markers (`prompt_cache_key` is a request field, forwarded untouched).
 *
 * Messages are matched by their canonical-content hash (`messages/history-hash`,
 * which markers do not take part in), walking back from the newest. Where the
 * summary sits comes with the context (`render-context`'s `ContextLayout`),
 * never from its text: a message that opens like a summary is not one.
 */

import {
  anthropicCacheMarkers,
  type CacheMarker,
  type ChatMessage,
  countAnthropicCacheMarkers,
  MAX_CACHE_MARKERS,
  type MarkerPlacement,
  openaiCacheMarkers,
} from "@condense/core";
import { messageHashesSync } from "../../messages/history-hash";
import type { GatewayProtocol, RequestBody } from "../protocols/protocol";
import type { ContextLayout } from "./render-context";

/** A block index past any message's last: a moved marker lands on its message's last block. */
export const LAST_BLOCK = Number.MAX_SAFE_INTEGER;

/** The markers the request carries on its history, by its canonical message index. */
function requestMarkers(protocol: GatewayProtocol, body: RequestBody): CacheMarker[] {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  if (protocol.name === "anthropic")
    return anthropicCacheMarkers({ system: body.system, messages });
  if (protocol.name === "chat") return openaiCacheMarkers(messages);
  return [];
}

/** Marked blocks the request keeps outside its history: its `tools`, and a top-level marker. */
function reservedMarkers(body: RequestBody): number {
  return countAnthropicCacheMarkers({ tools: body.tools, cache_control: body.cache_control });
}

/**
 * For each request message the context holds, its index in the context: both walked back from the
 * newest; a context message found earlier in the request means the request's message was left out
 * (an empty turn), any other is the context's own (summary, pinned, an answer stored meanwhile).
 */
function alignment(
  requestKeys: readonly string[],
  contextKeys: readonly string[],
): Map<number, number> {
  const positions = new Map<string, number[]>();
  requestKeys.forEach((key, index) => {
    const list = positions.get(key) ?? [];
    list.push(index);
    positions.set(key, list);
  });
  const found = new Map<number, number>();
  let i = requestKeys.length - 1;
  let j = contextKeys.length - 1;
  while (i >= 0 && j >= 0) {
    const key = contextKeys[j] ?? "";
    if (requestKeys[i] === key) {
      found.set(i, j);
      i--;
      j--;
    } else if ((positions.get(key)?.[0] ?? Number.POSITIVE_INFINITY) < i) {
      i--;
    } else {
      j--;
    }
  }
  return found;
}

/** Where a request message's marker lands: its own message, or the one kept right before the next kept. */
function targetOf(
  message: number,
  found: ReadonlyMap<number, number>,
  requestLength: number,
  contextLength: number,
): { at: number; moved: boolean } | undefined {
  const own = found.get(message);
  if (own !== undefined) return { at: own, moved: false };
  for (let next = message + 1; next < requestLength; next++) {
    const kept = found.get(next);
    if (kept !== undefined) return kept > 0 ? { at: kept - 1, moved: true } : undefined;
  }
  return contextLength > 0 ? { at: contextLength - 1, moved: true } : undefined;
}

/** The request's history and the context that goes upstream in its place. */
export interface MarkedHistories {
  /** The request's history, canonical, and the hash of each of its messages. */
  request: readonly ChatMessage[];
  requestHashes: readonly string[];
  /** What goes upstream in its place, canonical. */
  context: readonly ChatMessage[];
}

export interface MarkerInput extends MarkedHistories {
  protocol: GatewayProtocol;
  body: RequestBody;
  /** Where the context's stable prefix ends and its summary sits (`render-context`). */
  layout: ContextLayout;
}

/**
 * Where a marker on a request message lands on the context: its own message (`moved` false), or
 * the one kept right before the next kept, or nowhere (undefined).
 */
export function markerTargets(
  input: MarkedHistories,
): (message: number) => { at: number; moved: boolean } | undefined {
  // Messages of the request's own history are the same objects in the context: their hash is known.
  const byObject = new Map(input.request.map((message, index) => [message, index]));
  const unknown = input.context.filter((message) => !byObject.has(message));
  const computed = messageHashesSync(unknown);
  let next = 0;
  const contextKeys = input.context.map((message) => {
    const index = byObject.get(message);
    return index !== undefined ? (input.requestHashes[index] ?? "") : (computed[next++] ?? "");
  });
  const found = alignment(input.requestHashes, contextKeys);
  return (message) => targetOf(message, found, input.request.length, input.context.length);
}

/** Whether the request carries cache markers (on its history, its tools or at its top level). */
export function carriesCacheMarkers(protocol: GatewayProtocol, body: RequestBody): boolean {
  return requestMarkers(protocol, body).length > 0 || reservedMarkers(body) > 0;
}

/** Where the request's markers go on `context`, or undefined when the request carries none. */
export function cacheMarkerPlacement(input: MarkerInput): MarkerPlacement | undefined {
  const marked = requestMarkers(input.protocol, input.body);
  const reserved = reservedMarkers(input.body);
  if (marked.length === 0 && reserved === 0) return undefined;
  const targetOfMarker = markerTargets(input);
  const placed: CacheMarker[] = [];
  for (const marker of marked) {
    const target = targetOfMarker(marker.message);
    if (target === undefined) continue;
    placed.push({
      message: target.at,
      block: target.moved ? LAST_BLOCK : marker.block,
      cacheControl: marker.cacheControl,
    });
  }
  // Newest first: the marker on the newest message is what the next turn reads from.
  const ordered = [...placed].sort((a, b) => b.message - a.message || b.block - a.block);
  const [newest, ...older] = ordered;
  const { stablePrefix, summary } = input.layout;
  const prefix =
    stablePrefix > 0 && stablePrefix <= input.context.length
      ? prefixBreakpoint(stablePrefix - 1, placed)
      : undefined;
  const headEnd = prefix === undefined || summary < 0 ? -1 : summary - 1;
  const head = headEnd >= 0 ? prefixBreakpoint(headEnd, placed) : undefined;
  const cacheMarkers = [
    ...(newest !== undefined ? [newest] : []),
    ...(prefix !== undefined ? [prefix] : []),
    ...older,
    ...(head !== undefined ? [head] : []),
  ];
  return { cacheMarkers, slots: MAX_CACHE_MARKERS - reserved };
}

/**
 * The breakpoint on the last message of the stable prefix. It takes the TTL of the first client
 * marker after it (Anthropic wants longer TTLs first), else of the last before it, else the default.
 */
function prefixBreakpoint(at: number, placed: readonly CacheMarker[]): CacheMarker {
  const after = placed
    .filter((marker) => marker.message > at)
    .sort((a, b) => a.message - b.message || a.block - b.block)[0];
  const before = placed
    .filter((marker) => marker.message <= at)
    .sort((a, b) => b.message - a.message || b.block - a.block)[0];
  return {
    message: at,
    block: LAST_BLOCK,
    cacheControl: (after ?? before)?.cacheControl ?? { type: "ephemeral" },
  };
}
