/**
 * @module compact/summary-anchor
 * Which message holds the summary a compaction wrote. The `<compacted-context>`
 * marker proves nothing: a tool output, a fetched web page or a user message
 * can carry one, or copy a real summary verbatim. So each compaction returns,
 * in its `ledger`, the SHA-256 of the summary text it wrote
 * (`summarySha256`), the caller hands that ledger back (the Worker stores it
 * per session), and the next compaction recognises as the summary only the
 * first non-tool message whose summary text has exactly that digest. A copy
 * appended later comes after the genuine one, and a copy of an older summary
 * has another digest; every other marker block is quoted content. Without an
 * anchor no message is a summary. The anchor a caller hands back is checked
 * where options are resolved (`compact/options`, `summaryAnchor`).
 */

import type { ChatMessage } from "../messages/types.js";
import { extractSummary } from "./assemble.js";

/** Hex SHA-256 of a summary's text (as `result.summary` gives it): the anchor of that summary. */
export async function summaryDigest(summary: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(summary));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The index of the message holding the summary with digest `anchor`: the
 * first non-tool message whose summary text matches. Undefined without an
 * anchor or a match.
 */
export async function locateSummary(
  messages: readonly ChatMessage[],
  anchor: string | undefined,
): Promise<number | undefined> {
  if (anchor === undefined) return undefined;
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index];
    if (message === undefined || message.role === "tool") continue;
    const found = extractSummary(message);
    if (found !== undefined && (await summaryDigest(found.summary)) === anchor) return index;
  }
  return undefined;
}

/** The summary the engine wrote, as it stands in `messages` (recognised by `anchor`), or null. */
export async function currentSummary(
  messages: readonly ChatMessage[],
  anchor: string | undefined,
): Promise<string | null> {
  const at = await locateSummary(messages, anchor);
  const message = at === undefined ? undefined : messages[at];
  return (message && extractSummary(message)?.summary) ?? null;
}
