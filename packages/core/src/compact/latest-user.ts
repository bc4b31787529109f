/**
 * @module compact/latest-user
 * The latest user message stays verbatim, whatever is compacted: it is what
 * the agent is working on now. When its turn falls in the summarized range,
 * the summary ends with a `## Latest user message (verbatim)` section quoting
 * it, or, when it cannot be quoted (images, a secret, a marker tag) or would
 * take the summary over its size limit, the message itself follows the summary. A later compaction finds it again in
 * that section, which belongs to the engine: it is split off before a
 * summarizer reads the previous summary, and added back afterwards.
 *
 * The section ends with a closing line: the summary is trimmed wherever it is
 * placed or read back (`compact/assemble`), and a quote that ended the text
 * would lose the message's trailing whitespace to every trim.
 */

import { jsonEqual } from "../formats/json-equal.js";
import { messageText } from "../messages/content.js";
import type { ChatMessage } from "../messages/types.js";
import { containsSecret } from "../summary/redact.js";
import { hasSummaryMarker } from "../summary/template.js";
import { extractSummary } from "./assemble.js";

export interface LatestUser {
  /** The message that holds it, while it is still in the context (it may carry a merged summary). */
  message: ChatMessage | undefined;
  text: string;
  /** The user message as the user sent it, when there is one (not only a copy in a summary's text). */
  original: ChatMessage | undefined;
}

/** Images and other non-text parts cannot live in a summary's text: such a message is kept as a message. */
function hasNonTextParts(message: ChatMessage | undefined): message is ChatMessage {
  return Array.isArray(message?.content) && message.content.some((part) => part.type !== "text");
}

/**
 * A latest user message that cannot be quoted in a summary stays a message:
 * images, a secret (no summary holds one) or a marker tag (it would be
 * neutralized, so no longer verbatim).
 */
function staysMessage(latest: LatestUser): latest is LatestUser & { original: ChatMessage } {
  if (latest.original === undefined) return false;
  return (
    hasNonTextParts(latest.original) || containsSecret(latest.text) || hasSummaryMarker(latest.text)
  );
}

const LATEST_USER_HEADING = "## Latest user message (verbatim)";
/** The line that closes the quote, so that no trim of the summary reaches the message. */
const LATEST_USER_END = "(end of the latest user message)";

/**
 * Splits off the verbatim latest-user section the engine appends (always last) from a summary:
 * the text between its heading line and its closing line (a summary written before the closing
 * line existed quotes it to the end).
 */
export function splitLatestUser(summary: string): { summary: string; latest: string | undefined } {
  const at = summary.indexOf(`${LATEST_USER_HEADING}\n`);
  if (at === -1 || (at > 0 && summary[at - 1] !== "\n")) return { summary, latest: undefined };
  const start = at + LATEST_USER_HEADING.length + 1;
  const closing = `\n${LATEST_USER_END}`;
  const rest = summary.trimEnd();
  const end =
    rest.endsWith(closing) && rest.length - closing.length >= start
      ? rest.length - closing.length
      : summary.length;
  return { summary: summary.slice(0, at).trimEnd(), latest: summary.slice(start, end) };
}

/**
 * The latest user message of the conversation: the newest user message, or
 * the verbatim copy an earlier compaction kept in its summary (the one at
 * `summaryAt`) when no user message came after that summary.
 */
export function findLatestUser(
  messages: readonly ChatMessage[],
  summaryAt: number | undefined,
): LatestUser | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message === undefined) continue;
    const found = i === summaryAt ? extractSummary(message) : undefined;
    if (found !== undefined) {
      const latest = splitLatestUser(found.summary).latest;
      if (latest !== undefined) return { message: undefined, text: latest, original: undefined };
      // A summary merged into a user message: that message is the latest user message.
      const rest = found.remainder;
      if (message.role === "user" && rest !== undefined)
        return { message, text: messageText(rest), original: rest };
      return undefined;
    }
    if (message.role === "user") return { message, text: messageText(message), original: message };
  }
  return undefined;
}

/**
 * The summary text to place between `head` and the rest, and the messages
 * after it (`kept` of the middle, then `tail`), such that the latest user
 * message is still there verbatim: in place when a kept message holds it,
 * else quoted at the end of the summary, else (when it cannot be quoted) as
 * itself right after the summary.
 */
export function keepLatestUser(
  latest: LatestUser | undefined,
  summary: string,
  head: readonly ChatMessage[],
  kept: readonly ChatMessage[],
  tail: readonly ChatMessage[],
  fits: (section: string) => boolean = () => true,
): { summary: string; after: ChatMessage[] } {
  // A merged summary's remainder is rebuilt on every extraction, so it is recognised by its content.
  const isLatest = (message: ChatMessage): boolean =>
    latest?.message !== undefined &&
    (message === latest.message ||
      (latest.original !== undefined &&
        latest.original !== latest.message &&
        message.role === "user" &&
        jsonEqual(message.content, latest.original.content)));
  const stillThere = head.some(isLatest) || kept.some(isLatest) || tail.some(isLatest);
  if (latest === undefined || stillThere) return { summary, after: [...kept, ...tail] };
  const own = splitLatestUser(summary).summary;
  const section = latestUserSection(latest.text);
  if (staysMessage(latest) || !fits(section)) {
    // It cannot be written into the summary, or it would take the summary over its size limit:
    // the message itself follows the summary, whole.
    const message = latest.original ?? { role: "user" as const, content: latest.text };
    return { summary: own, after: [message, ...kept, ...tail] };
  }
  return { summary: `${own}${section}`, after: [...kept, ...tail] };
}

/** The section quoting the latest user message, as it ends a summary. */
export function latestUserSection(text: string): string {
  return `\n\n${LATEST_USER_HEADING}\n${text}\n${LATEST_USER_END}`;
}
