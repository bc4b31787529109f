/**
 * @module messages/history-hash
 * The canonical-content hash of a message, which is how the gateway matches
 * the history an agent sends every turn against the session's transcript
 * without shipping the transcript anywhere: the session stores one hash per
 * message (at append, or on first use), the Worker hashes the request's
 * messages, and the session object compares the two lists.
 *
 * Two messages hash alike when they say the same thing, whatever JSON an SDK
 * wrote for them: role, text (a string and a single text part are equal;
 * `content: null`, absent, `""` and `[]` are all "no text"), images, tool
 * calls (id, name, arguments compared as parsed JSON, so key order and
 * spacing do not matter) and the tool-call id a result answers. What the
 * canonical form drops (`refusal: null`, `annotations: []`, `audio`, unknown
 * keys, cache markers) never reaches it; provider data (thinking blocks,
 * reasoning items, original blocks and items) and `name` are left out, because
 * agents drop or rewrite them between turns. An item or block the engine does
 * not know counts by the text that stands for it (`formats/opaque` in core:
 * sorted keys, without ids, statuses or cache markers). A custom tool call
 * counts by its name and input text.
 */

import { type ChatMessage, type MessageContent, stableJson, type ToolCall } from "@condense/core";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { MessageKeyedCache, messageKey } from "./message-key";

function contentForm(content: MessageContent | undefined): unknown {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  const parts = content.map((part): unknown => {
    if (part.type === "text") return part.text;
    if (part.type === "image_url") return { image: part.image_url.url };
    // Files and audio are compared whole (stableJson sorts their keys).
    return part;
  });
  if (parts.length === 0) return "";
  return parts.length === 1 && typeof parts[0] === "string" ? parts[0] : parts;
}

function argumentsForm(text: string): unknown {
  try {
    return { json: JSON.parse(text) as unknown };
  } catch {
    return { text };
  }
}

function callsForm(calls: readonly ToolCall[] | undefined): unknown[] {
  return (calls ?? []).map((call) =>
    call.type === "custom"
      ? [call.id, call.custom.name, { custom: call.custom.input }]
      : [call.id, call.function.name, argumentsForm(call.function.arguments)],
  );
}

/**
 * Lines of a prompt that change from one process of the same agent to the next and say nothing to
 * the model: Claude Code's billing header (`x-anthropic-billing-header: cc_version=2.1.332.ab8;
 * …`), whose build hash differs in every `claude` process, so a conversation resumed with
 * `--continue` or `--resume` (its `/compact` in headless mode among them) would read as another.
 */
const VOLATILE_PROMPT_LINES = /^x-anthropic-billing-header:[^\n]*(?:\n|$)/gm;

/** `content` of a system or developer message without its volatile lines. */
function withoutVolatileLines(content: MessageContent | undefined): MessageContent | undefined {
  if (typeof content === "string") return content.replace(VOLATILE_PROMPT_LINES, "");
  if (!Array.isArray(content)) return content;
  return content
    .map((part) =>
      part.type === "text" ? { ...part, text: part.text.replace(VOLATILE_PROMPT_LINES, "") } : part,
    )
    .filter((part) => part.type !== "text" || part.text !== "");
}

/** The text the hash of `message` is taken of. */
export function canonicalContent(message: ChatMessage): string {
  const prompt = message.role === "system" || message.role === "developer";
  return stableJson([
    message.role,
    contentForm(prompt ? withoutVolatileLines(message.content) : message.content),
    callsForm(message.tool_calls),
    message.tool_call_id ?? null,
  ]);
}

const encoder = new TextEncoder();

/**
 * Hashes this isolate computed, by message key (`messages/message-key`; about 8 MB of one-byte
 * text): an agent resends its whole history every turn and an isolate serves many turns, so the
 * earlier turns' messages are looked up, not digested again (a digest per message cost more than
 * the whole lookup), and `canonicalContent` is built only for the messages not found.
 */
const hashCache = new MessageKeyedCache<string>(8_000_000);

/**
 * The hex SHA-256 of each message's canonical content, in order: what the Worker computes for a
 * request's history every turn, with the runtime's native digest for the messages this isolate has
 * not hashed before.
 */
export async function messageHashes(messages: readonly ChatMessage[]): Promise<string[]> {
  const keys = messages.map(messageKey);
  const hashes = keys.map((key) => hashCache.get(key));
  const missing = hashes.flatMap((hash, index) => (hash === undefined ? [index] : []));
  const digests = await Promise.all(
    missing.map((index) => {
      const message = messages[index];
      const content = message === undefined ? "" : canonicalContent(message);
      return crypto.subtle.digest("SHA-256", encoder.encode(content));
    }),
  );
  missing.forEach((index, at) => {
    const digest = digests[at];
    if (digest === undefined) return;
    const hash = bytesToHex(new Uint8Array(digest));
    hashes[index] = hash;
    const key = keys[index];
    if (key !== undefined) hashCache.set(key, hash);
  });
  return hashes.map((hash) => hash ?? "");
}

/**
 * The same hashes, computed synchronously (noble's audited SHA-256, in JavaScript), for the session
 * object, which hashes messages appended otherwise inside its transaction.
 */
export function messageHashesSync(messages: readonly ChatMessage[]): string[] {
  return messages.map((message) => bytesToHex(sha256(encoder.encode(canonicalContent(message)))));
}
