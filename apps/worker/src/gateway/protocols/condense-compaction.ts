/**
 * @module gateway/protocols/condense-compaction
 * The gateway's own `compaction` item of the Responses API, for an upstream
 * without `/responses/compact` (`routes/gateway` answers with the engine's
 * compaction instead). OpenAI's answer is the input's user messages followed by
 * one `compaction` item whose `encrypted_content` the client sends back
 * unchanged; the gateway's item carries, as base64 JSON behind a prefix of its
 * own, the Responses items of the compacted context that are not among those
 * user messages (the summary, the recent turns it kept). When a later request's
 * input carries such an item, it is put back as those items in its place
 * before the request is read (`expandCondenseCompactions`): the upstream never
 * sees an item it did not make, and the session reads the compacted history as
 * any other.
 */

import { isRecord, type RequestBody } from "./protocol";

/** Begins the `encrypted_content` of the gateway's own compaction items (never OpenAI's). */
export const CONDENSE_COMPACTION_PREFIX = "condense-compaction-v1:";

function toBase64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(encoded: string): string {
  const binary = atob(encoded);
  return new TextDecoder().decode(Uint8Array.from(binary, (char) => char.charCodeAt(0)));
}

/** A `compaction` output item standing for `items` (Responses items of the compacted context). */
export function condenseCompactionItem(items: readonly unknown[]): {
  type: "compaction";
  id: string;
  encrypted_content: string;
} {
  return {
    type: "compaction",
    id: `cmp_${crypto.randomUUID().replaceAll("-", "")}`,
    encrypted_content: `${CONDENSE_COMPACTION_PREFIX}${toBase64(JSON.stringify(items))}`,
  };
}

/** The items a gateway compaction item stands for; undefined for any other item (OpenAI's too). */
function expansion(item: unknown): unknown[] | undefined {
  if (!isRecord(item) || item.type !== "compaction") return undefined;
  const content = item.encrypted_content;
  if (typeof content !== "string" || !content.startsWith(CONDENSE_COMPACTION_PREFIX)) {
    return undefined;
  }
  try {
    const items: unknown = JSON.parse(fromBase64(content.slice(CONDENSE_COMPACTION_PREFIX.length)));
    return Array.isArray(items) ? items : undefined;
  } catch {
    // Not one the gateway made after all: it goes upstream as it came, for the provider to judge.
    return undefined;
  }
}

/**
 * A Responses request whose `input` carries gateway compaction items, with each put back as the
 * items it stands for; undefined when it carries none (the request goes on as it came).
 */
export function expandCondenseCompactions(body: RequestBody): RequestBody | undefined {
  if (!Array.isArray(body.input)) return undefined;
  let expanded = false;
  const input = body.input.flatMap((item: unknown) => {
    const items = expansion(item);
    if (items === undefined) return [item];
    expanded = true;
    return items;
  });
  return expanded ? { ...body, input } : undefined;
}
