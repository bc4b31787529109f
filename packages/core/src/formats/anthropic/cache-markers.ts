/**
 * @module formats/anthropic/cache-markers
 * Anthropic's cache breakpoints (`cache_control` on a block) as
 * `formats/cache-markers` handles them: left out of what is stored, read from
 * a request by canonical message index (as `fromAnthropic` numbers its
 * messages), placed again on the blocks `toAnthropic` builds, and counted as
 * Anthropic counts them (every block of `tools`, `system` and `messages` that
 * carries one, the blocks inside a tool result included).
 */

import { field, isRecord } from "../../messages/input-checks.js";
import { type CacheMarker, markerOf } from "../cache-markers.js";
import type { AnthropicBlock } from "./types.js";

/** The blocks nested in `block` (a tool result's or search result's content, a document's). */
function nestedBlocks(block: Record<string, unknown>): unknown[] {
  const content = field(block, "content");
  if ((block.type === "tool_result" || block.type === "search_result") && Array.isArray(content))
    return content;
  const source = field(block, "source");
  if (block.type === "document" && isRecord(source) && Array.isArray(source.content))
    return source.content;
  return [];
}

/** `block` with `inner` in place of its nested blocks. */
function withNested(block: Record<string, unknown>, inner: unknown[]): Record<string, unknown> {
  if (block.type !== "document") return { ...block, content: inner };
  return { ...block, source: { ...(block.source as Record<string, unknown>), content: inner } };
}

/** A block without any marker, its nested blocks' included (the same object when it has none). */
function unmarked<T>(block: T): T {
  if (!isRecord(block)) return block;
  let out: Record<string, unknown> = block;
  if (Object.hasOwn(out, "cache_control")) {
    const { cache_control: _marker, ...rest } = out;
    out = rest;
  }
  const nested = nestedBlocks(out);
  const inner = nested.map(unmarked);
  if (inner.some((item, index) => item !== nested[index])) out = withNested(out, inner);
  return out as T;
}

/**
 * `blocks` without any cache marker, nested ones included; the same array when none had one (the
 * blocks themselves are never modified).
 */
export function withoutCacheMarkers<T extends AnthropicBlock | unknown>(blocks: T[]): T[] {
  const out = blocks.map(unmarked);
  return out.some((block, index) => block !== blocks[index]) ? out : blocks;
}

/** How many blocks carry a marker: `block` and those nested in it, each once, as Anthropic counts. */
function markedBlocks(block: unknown): number {
  if (!isRecord(block)) return 0;
  const own = markerOf(block) === undefined ? 0 : 1;
  return nestedBlocks(block).reduce((sum: number, item) => sum + markedBlocks(item), own);
}

/**
 * How many blocks of an Anthropic request (`tools`, `system`, `messages`) carry a cache marker:
 * what Anthropic limits to 4. A top-level `cache_control` (automatic caching) takes one more.
 */
export function countAnthropicCacheMarkers(request: {
  tools?: unknown;
  system?: unknown;
  messages?: unknown;
  cache_control?: unknown;
}): number {
  let count = isRecord(request.cache_control) ? 1 : 0;
  for (const list of [request.tools, request.system]) {
    if (Array.isArray(list)) for (const item of list) count += markedBlocks(item);
  }
  if (Array.isArray(request.messages)) {
    for (const message of request.messages) {
      const content = isRecord(message) ? field(message, "content") : undefined;
      if (Array.isArray(content)) for (const block of content) count += markedBlocks(block);
    }
  }
  return count;
}

/** The marker of a block, or of the first block nested in it that carries one. */
function blockMarker(block: unknown): Record<string, unknown> | undefined {
  const own = markerOf(block);
  if (own !== undefined || !isRecord(block)) return own;
  for (const item of nestedBlocks(block)) {
    const nested = blockMarker(item);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/**
 * The markers of an Anthropic request (unchecked input, numbered as `fromAnthropic` numbers the
 * canonical messages it makes of a valid one): the top-level `system` is message 0 when present; a
 * user turn is its tool results, one message each, then one message of its other blocks. A marker
 * nested in a tool result marks the tool result.
 */
export function anthropicCacheMarkers(input: {
  system?: unknown;
  messages: readonly unknown[];
}): CacheMarker[] {
  const markers: CacheMarker[] = [];
  let next = 0;
  const add = (message: number, blocks: readonly unknown[]) => {
    blocks.forEach((block, index) => {
      const cacheControl = blockMarker(block);
      if (cacheControl !== undefined) markers.push({ message, block: index, cacheControl });
    });
  };
  if (input.system !== undefined && input.system !== null) {
    if (Array.isArray(input.system)) add(next, input.system);
    next++;
  }
  for (const turn of input.messages) {
    const content = isRecord(turn) ? field(turn, "content") : undefined;
    if (!Array.isArray(content)) {
      next++;
      continue;
    }
    if (!isRecord(turn) || turn.role !== "user") {
      add(next++, content);
      continue;
    }
    const others: unknown[] = [];
    for (const block of content) {
      if (isRecord(block) && block.type === "tool_result") add(next++, [block]);
      else others.push(block);
    }
    if (others.length > 0) add(next++, others);
  }
  return markers;
}
