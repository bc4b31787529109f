/**
 * @module formats/opaque
 * What stands, in canonical messages, for the provider items and blocks the
 * engine does not understand (Anthropic server-tool blocks such as
 * `server_tool_use` and `web_search_tool_result`, block types added later,
 * Responses item types it does not read): the original rides in
 * `provider_data` and is sent back verbatim, and the canonical message holds
 * a text that says what it is, so that it is counted by its size, other
 * formats show it, and a summary reads it as data.
 *
 * The text is written deterministically (object keys sorted, null fields and
 * volatile ones such as ids, statuses and cache markers left out), so the same
 * item reads the same whichever SDK serialized it: the gateway matches a
 * request's history with the session by that text.
 */

import type { ChatMessage } from "../messages/types.js";
import { KNOWN_ITEM_TYPES } from "./responses/types.js";
import { stableJson } from "./stable-json.js";

/** `[kind] {…}`: what an opaque item or block holds, its fields but `omit` as stable JSON. */
export function opaqueText(kind: string, value: object, omit: ReadonlySet<string>): string {
  return `[${kind}] ${stableJson(value, { omit, dropNulls: true })}`;
}

/**
 * Whether `message` stands for Responses items of a type the engine does not know. Its canonical
 * form cannot be written back as those items, so compaction never edits such a message (it keeps
 * it whole, or summarizes it away with its pair).
 */
export function isOpaqueMessage(message: ChatMessage): boolean {
  const items = message.provider_data?.responses?.items;
  if (!Array.isArray(items)) return false;
  return items.some((item: unknown) => {
    const type = typeof item === "object" && item !== null ? Reflect.get(item, "type") : undefined;
    return typeof type === "string" && !KNOWN_ITEM_TYPES.has(type);
  });
}
