/**
 * @module formats/anthropic/tool-ids
 * Tool ids Anthropic accepts: `tool_use` ids of `[a-zA-Z0-9_-]` only, unique
 * across the conversation. `toAnthropic` keeps an id that already is one (its
 * first use); any other (`call_1|fc_2`, an id reused by a later call) becomes
 * the id with every other character replaced by `_`, plus `_` and 8 hex digits
 * of a hash of the id and its occurrence, and its `tool_result` the same (a
 * result answers the nearest earlier call with its id). The same conversation
 * always gets the same ids, distinct calls never share one, and
 * `fromAnthropic(toAnthropic(x))` keeps every id it did not change.
 */

import type { ChatMessage } from "../../messages/types.js";
import { type AnthropicBlock, isKnownBlock } from "./types.js";

const ANTHROPIC_TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/** Whether Anthropic accepts `id` as a tool_use id. */
export function isAnthropicToolId(id: string): boolean {
  return ANTHROPIC_TOOL_ID.test(id);
}

/**
 * FNV-1a (32 bits) of `text`, as 8 hex digits. Written by hand: the only hash the runtimes share
 * (WebCrypto) is asynchronous, and this suffix needs no more than a short, stable spread; the
 * caller guarantees uniqueness.
 */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** An Anthropic id for occurrence `n` (from 1) of call id `id`, not yet in `used`. */
function mappedToolId(id: string, n: number, used: ReadonlySet<string>): string {
  if (n === 1 && isAnthropicToolId(id) && !used.has(id)) return id;
  const readable = id.replace(/[^a-zA-Z0-9_-]+/g, "_").slice(0, 64) || "toolu";
  const base = `${readable}_${fnv1a(n === 1 ? id : `${id}#${n}`)}`;
  let candidate = base;
  for (let bump = 2; used.has(candidate); bump++) candidate = `${base}_${bump}`;
  return candidate;
}

/**
 * The Anthropic tool ids of each message, by canonical index: an assistant message's calls in
 * order, or the call a tool message answers. See the module comment for the rules.
 */
export function anthropicToolIds(messages: readonly ChatMessage[]): Map<number, string[]> {
  const ids = new Map<number, string[]>();
  const used = new Set<string>();
  const occurrences = new Map<string, number>();
  // Per canonical id: the mapped ids of the latest calls with it that still await a result, and
  // the latest one (a second result of a call gets its id too, for validate to report).
  const awaiting = new Map<string, string[]>();
  const latest = new Map<string, string>();
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (id === undefined) return;
      const mapped = awaiting.get(id)?.shift() ?? latest.get(id) ?? mappedToolId(id, 1, new Set());
      ids.set(index, [mapped]);
      return;
    }
    const calls = message.role === "assistant" ? (message.tool_calls ?? []) : [];
    if (calls.length === 0) return;
    const mine = new Map<string, string[]>();
    const mapped = calls.map((call) => {
      const n = (occurrences.get(call.id) ?? 0) + 1;
      occurrences.set(call.id, n);
      const id = mappedToolId(call.id, n, used);
      used.add(id);
      mine.set(call.id, [...(mine.get(call.id) ?? []), id]);
      latest.set(call.id, id);
      return id;
    });
    for (const [id, list] of mine) awaiting.set(id, list);
    ids.set(index, mapped);
  });
  return ids;
}

/** `content` with its tool_use/tool_result ids replaced by `ids` (a copy, only if any changed). */
export function withToolIds(
  content: string | AnthropicBlock[],
  ids: readonly string[] | undefined,
): string | AnthropicBlock[] {
  if (ids === undefined || typeof content === "string") return content;
  let next = 0;
  let changed = false;
  const blocks = content.map((block): AnthropicBlock => {
    if (!isKnownBlock(block)) return block;
    if (block.type === "tool_use") {
      const id = ids[next++] ?? block.id;
      if (id === block.id) return block;
      changed = true;
      return { ...block, id };
    }
    if (block.type === "tool_result") {
      const id = ids[0] ?? block.tool_use_id;
      if (id === block.tool_use_id) return block;
      changed = true;
      return { ...block, tool_use_id: id };
    }
    return block;
  });
  return changed ? blocks : content;
}
