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

/** The longest item or block type kept opaque: real ones (`bash_code_execution_tool_result`) are half that. */
export const MAX_TYPE_NAME_LENGTH = 64;

const TYPE_NAME = new RegExp(`^[a-z][a-z0-9_]{0,${MAX_TYPE_NAME_LENGTH - 1}}$`);

/**
 * Whether `type` is shaped like the type names providers use (`web_search_call`,
 * `server_tool_use`): lowercase letters, digits and `_`, at most 64 characters. Only such a type
 * is kept opaque: anything else is no item or block any provider takes, and storing it would
 * serve back what no format can carry.
 */
export function isTypeName(type: string): boolean {
  return TYPE_NAME.test(type);
}

/** Why `type` is refused as an opaque type, quoting a bounded part of it. */
export function typeNameProblem(type: string, what: string): string {
  const shown = type.length > 40 ? `${type.slice(0, 40)}… (${type.length} characters)` : type;
  return `${what} type ${JSON.stringify(shown)} is not one Condense knows, and is kept as it is only when shaped like a type name (lowercase letters, digits and _, starting with a letter, at most ${MAX_TYPE_NAME_LENGTH} characters); fix the type, or leave the item out`;
}

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
