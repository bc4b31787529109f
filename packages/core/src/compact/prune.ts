/**
 * @module compact/prune
 * Tier 1, the tool strip: no LLM, no loss. Tool outputs become one-line
 * placeholders naming the tool and call id (the caller gets every original in
 * `prunedToolOutputs`, so a store can serve it back); outputs repeated later
 * are deduplicated; oversized tool-call arguments are shrunk, still valid JSON.
 */

import { messageText, toolNamesById } from "../messages/content.js";
import type { ChatMessage } from "../messages/types.js";
import { extractIdentifiers } from "../summary/identifiers.js";
import { messageTokens } from "../tokens/count.js";
import { DEFAULTS } from "./options.js";
import type { PrunedToolOutput } from "./types.js";

/** Tool-call arguments longer than this are shrunk outside the tail. */
const MAX_ARGUMENT_CHARS = 2_000;
/** What remains of each long string value in shrunk arguments. */
const KEPT_STRING_CHARS = 300;

export function pruneMarker(toolName: string, toolCallId: string, tokens: number): string {
  return `[Condense pruned this ${toolName} output (${tokens} tokens) to save context; fetch it back by tool call id ${toolCallId} if needed.]`;
}

function duplicateMarker(toolName: string, laterCallId: string): string {
  return `[Condense removed this ${toolName} output: identical to the later result of tool call ${laterCallId}.]`;
}

export function isPrunePlaceholder(text: string): boolean {
  return text.startsWith("[Condense pruned this ") || text.startsWith("[Condense removed this ");
}

export interface PruneRange {
  /** First message that may be pruned. */
  from: number;
  /** One past the last message that may be pruned. */
  to: number;
  /** Stop once this many tokens were saved (Infinity: prune everything eligible). */
  needToSave: number;
}

export interface PruneOutcome {
  messages: ChatMessage[];
  pruned: PrunedToolOutput[];
  saved: number;
}

function shrinkValue(value: unknown): unknown {
  if (typeof value === "string" && value.length > KEPT_STRING_CHARS * 2) {
    const kept = value.slice(0, KEPT_STRING_CHARS);
    // Identifiers in the cut part stay in the context, so the ledger guarantee holds for arguments too.
    const lost = extractIdentifiers(value.slice(KEPT_STRING_CHARS)).filter(
      (id) => !kept.includes(id),
    );
    const note = lost.length === 0 ? "" : `; identifiers in the cut part: ${lost.join(" ")}`;
    return `${kept}…[Condense cut ${value.length - KEPT_STRING_CHARS} characters${note}]`;
  }
  if (Array.isArray(value)) return value.map(shrinkValue);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, shrinkValue(inner)]),
    );
  }
  return value;
}

function shrinkArguments(message: ChatMessage): ChatMessage | undefined {
  const calls = message.tool_calls;
  if (!calls?.some((call) => call.function.arguments.length > MAX_ARGUMENT_CHARS)) return undefined;
  return {
    ...message,
    tool_calls: calls.map((call) => {
      if (call.function.arguments.length <= MAX_ARGUMENT_CHARS) return call;
      let parsed: unknown;
      try {
        parsed = JSON.parse(call.function.arguments);
      } catch {
        return call; // not JSON: leave it rather than produce something invalid
      }
      return {
        ...call,
        function: { ...call.function, arguments: JSON.stringify(shrinkValue(parsed)) },
      };
    }),
  };
}

/**
 * Prunes oldest first within `range` until `needToSave` tokens are saved:
 * first duplicates of a later identical output, then every output longer than
 * 200 characters, then oversized tool-call arguments. Messages are replaced,
 * never removed, so tool-call pairing is untouched.
 */
export function pruneToolOutputs(
  messages: readonly ChatMessage[],
  model: string,
  range: PruneRange,
): PruneOutcome {
  const result = [...messages];
  const pruned: PrunedToolOutput[] = [];
  const names = toolNamesById(messages);
  let saved = 0;

  const replace = (index: number, replacement: ChatMessage, original?: PrunedToolOutput): void => {
    const before = result[index];
    if (before === undefined) return;
    const delta = messageTokens(before, model) - messageTokens(replacement, model);
    if (delta <= 0) return;
    result[index] = replacement;
    saved += delta;
    if (original) pruned.push(original);
  };

  const lastSeen = new Map<string, string>();
  for (let i = messages.length - 1; i >= range.to; i--) {
    const message = messages[i];
    if (message?.role === "tool" && message.tool_call_id)
      lastSeen.set(messageText(message), message.tool_call_id);
  }
  const duplicates: Array<[number, string]> = [];
  for (let i = range.to - 1; i >= range.from; i--) {
    const message = messages[i];
    if (message?.role !== "tool" || !message.tool_call_id) continue;
    const text = messageText(message);
    if (text.length <= DEFAULTS.prunableOutputChars || isPrunePlaceholder(text)) continue;
    const later = lastSeen.get(text);
    if (later !== undefined) duplicates.push([i, later]);
    lastSeen.set(text, message.tool_call_id);
  }

  const entry = (message: ChatMessage, index: number): PrunedToolOutput => {
    const toolCallId = message.tool_call_id ?? "";
    return {
      toolCallId,
      toolName: names.get(toolCallId) ?? "tool",
      content: messageText(message),
      tokens: messageTokens(messages[index] ?? message, model),
    };
  };

  for (const [index, laterCallId] of duplicates.reverse()) {
    if (saved >= range.needToSave) break;
    const message = messages[index];
    if (message === undefined) continue;
    const original = entry(message, index);
    replace(
      index,
      { ...message, content: duplicateMarker(original.toolName, laterCallId) },
      original,
    );
  }

  for (let i = range.from; i < range.to && saved < range.needToSave; i++) {
    const message = result[i];
    if (message?.role !== "tool" || message !== messages[i]) continue;
    const text = messageText(message);
    if (text.length <= DEFAULTS.prunableOutputChars || isPrunePlaceholder(text)) continue;
    const original = entry(message, i);
    replace(
      i,
      { ...message, content: pruneMarker(original.toolName, original.toolCallId, original.tokens) },
      original,
    );
  }

  for (let i = range.from; i < range.to && saved < range.needToSave; i++) {
    const message = result[i];
    if (message?.role !== "assistant") continue;
    const shrunk = shrinkArguments(message);
    if (shrunk) replace(i, shrunk);
  }

  return { messages: result, pruned, saved };
}
