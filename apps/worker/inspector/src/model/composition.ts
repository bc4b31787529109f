/**
 * @module model/composition
 * What the current context is made of, by tokens: the system prompt and the
 * head kept verbatim, pinned messages, the memory block, the summary, and the
 * verbatim tail (with any tool-output placeholders in it).
 *
 * Derived from `/context` (the messages), the transcript (exact token counts)
 * and the settings (pinned messages), since the API does not report parts:
 * a message served as appended is found in the transcript and counted
 * exactly; the rest (summary, pinned, memory, placeholders) share what is
 * left of the context's token total in proportion to their size, and are
 * marked as estimates.
 */

import { SUMMARY_OPEN } from "@condense/core";
import type { ChatLike } from "../api/types.ts";
import { contentText, messageChars, messageKey } from "./messages.ts";

export const PARTS = ["system", "pinned", "memory", "summary", "tail"] as const;
export type PartName = (typeof PARTS)[number];

export const PART_LABELS: Record<PartName, string> = {
  system: "System & head",
  pinned: "Pinned",
  memory: "Memory",
  summary: "Summary",
  tail: "Verbatim tail",
};

export interface ContextPart {
  part: PartName;
  messages: number;
  tokens: number;
  /** False when some of its tokens are an estimate (its messages are not in the transcript). */
  exact: boolean;
}

export interface CompositionInput {
  /** The context's messages (`/context?format=openai`). */
  messages: readonly ChatLike[];
  /** The context's token total (`/context` `tokens`). */
  tokens: number;
  /** The session's pinned messages (settings). */
  pinned: readonly ChatLike[];
  /** Transcript messages with their stored token counts. */
  transcript: ReadonlyArray<{ tokens: number; message: ChatLike }>;
}

interface Classified {
  part: PartName;
  exactTokens: number | null;
  chars: number;
}

function isSystem(message: ChatLike): boolean {
  return message.role === "system" || message.role === "developer";
}

export function composeContext(input: CompositionInput): ContextPart[] {
  // Each transcript message can account for one context message; repeats are used in order.
  const transcript = new Map<string, number[]>();
  for (const entry of input.transcript) {
    const key = messageKey(entry.message);
    const list = transcript.get(key);
    if (list === undefined) transcript.set(key, [entry.tokens]);
    else list.push(entry.tokens);
  }
  const pinned = new Map<string, number>();
  for (const message of input.pinned) {
    const key = messageKey(message);
    pinned.set(key, (pinned.get(key) ?? 0) + 1);
  }
  const summaryAt = input.messages.findIndex((m) => contentText(m).includes(SUMMARY_OPEN));
  // Before the first transcript message that is not a system prompt, what the service injected
  // (and is neither pinned nor the summary) is the memory block.
  let seenConversation = false;
  const classified: Classified[] = input.messages.map((message, index) => {
    const key = messageKey(message);
    const chars = messageChars(message);
    if (index === summaryAt) return { part: "summary", exactTokens: null, chars };
    const pinnedLeft = pinned.get(key) ?? 0;
    if (pinnedLeft > 0 && !seenConversation) {
      pinned.set(key, pinnedLeft - 1);
      return { part: "pinned", exactTokens: null, chars };
    }
    const counts = transcript.get(key);
    const exactTokens = counts?.shift() ?? null;
    if (exactTokens === null) {
      const injected = !seenConversation && message.role !== "tool" && message.role !== "assistant";
      return { part: injected ? "memory" : "tail", exactTokens, chars };
    }
    if (!isSystem(message)) seenConversation = true;
    const beforeSummary = summaryAt !== -1 && index < summaryAt;
    return { part: isSystem(message) || beforeSummary ? "system" : "tail", exactTokens, chars };
  });

  const exactSum = classified.reduce((sum, c) => sum + (c.exactTokens ?? 0), 0);
  const estimatedChars = classified.reduce(
    (sum, c) => sum + (c.exactTokens === null ? c.chars : 0),
    0,
  );
  const remainder = Math.max(0, input.tokens - exactSum);
  const parts = new Map<PartName, ContextPart>(
    PARTS.map((part) => [part, { part, messages: 0, tokens: 0, exact: true }]),
  );
  for (const c of classified) {
    const part = parts.get(c.part);
    if (part === undefined) continue;
    part.messages++;
    if (c.exactTokens !== null) part.tokens += c.exactTokens;
    else {
      part.exact = false;
      part.tokens += estimatedChars === 0 ? 0 : (remainder * c.chars) / estimatedChars;
    }
  }
  return PARTS.map((name) => {
    const part = parts.get(name) ?? { part: name, messages: 0, tokens: 0, exact: true };
    return { ...part, tokens: Math.round(part.tokens) };
  });
}
