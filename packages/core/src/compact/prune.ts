/**
 * @module compact/prune
 * Tier 1, the tool strip: no LLM, no loss. Tool outputs become one-line
 * placeholders naming the tool and call id (the caller gets every original in
 * `prunedToolOutputs`, so a store can serve it back); outputs repeated later
 * are deduplicated; oversized tool-call arguments are shrunk, still valid JSON.
 * A message standing for provider items the engine cannot write back
 * (`isOpaqueMessage`) is never edited: it stays whole until a summary takes it.
 */

import { isOpaqueMessage } from "../formats/opaque.js";
import {
  reusedCallIds,
  type ToolOutputKey,
  type ToolResultCall,
  toolResultCalls,
} from "../messages/call-ids.js";
import { messageText, toolCallInput } from "../messages/content.js";
import type { ChatMessage } from "../messages/types.js";
import { extractIdentifiers } from "../summary/identifiers.js";
import { messageTokens } from "../tokens/count.js";
import { DEFAULTS } from "./options.js";
import type { PrunedToolOutput } from "./types.js";

/** Tool-call arguments longer than this are shrunk outside the tail. */
const MAX_ARGUMENT_CHARS = 2_000;
/** What remains of each long string value in shrunk arguments. */
const KEPT_STRING_CHARS = 300;

/** `reference` names the output for fetching it back, e.g. `tool call id call_7`. */
export function pruneMarker(toolName: string, reference: string, tokens: number): string {
  return `[Condense pruned this ${toolName} output (${tokens} tokens) to save context; fetch it back by ${reference} if needed.]`;
}

function duplicateMarker(toolName: string, laterReference: string): string {
  return `[Condense removed this ${toolName} output: identical to the later result of ${laterReference}.]`;
}

/** How pruning tells the outputs it replaces apart, and names them in its placeholders. */
export interface OutputNaming {
  /** The call the tool message at `index` of the list being pruned answers. */
  callOf(message: ChatMessage, index: number): ToolResultCall;
  /** How a placeholder names an output so that it can be fetched back. */
  reference(key: ToolOutputKey): string;
}

/**
 * Names an output by its call id, with the occurrence when the conversation (whose reused ids are
 * `reused`) has several calls with that id, since the id alone would then name more than one output.
 */
export function referenceById(reused: ReadonlySet<string>): (key: ToolOutputKey) => string {
  return ({ toolCallId, occurrence }) =>
    reused.has(toolCallId)
      ? `tool call id ${toolCallId} (call ${occurrence} with that id)`
      : `tool call id ${toolCallId}`;
}

/** Naming read from the list being pruned itself. */
export function namingOf(messages: readonly ChatMessage[]): OutputNaming {
  const calls = toolResultCalls(messages);
  return {
    callOf: (message, index) =>
      calls.get(index) ?? {
        toolCallId: message.tool_call_id ?? "",
        occurrence: 0,
        toolName: undefined,
      },
    reference: referenceById(reusedCallIds(messages)),
  };
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
  /** Which outputs go first: the oldest (default), or the largest. */
  order?: "oldest" | "largest";
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
  if (!calls?.some((call) => toolCallInput(call).length > MAX_ARGUMENT_CHARS)) return undefined;
  return {
    ...message,
    tool_calls: calls.map((call) => {
      if (toolCallInput(call).length <= MAX_ARGUMENT_CHARS) return call;
      if (call.type === "custom") {
        return {
          ...call,
          custom: { ...call.custom, input: String(shrinkValue(call.custom.input)) },
        };
      }
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
 * Prunes oldest first (or largest first, `range.order`) within `range` until `needToSave` tokens
 * are saved:
 * first duplicates of a later identical output, then every output longer than
 * 200 characters, then oversized tool-call arguments. Messages are replaced,
 * never removed, so tool-call pairing is untouched.
 */
export function pruneToolOutputs(
  messages: readonly ChatMessage[],
  model: string,
  range: PruneRange,
  naming: OutputNaming = namingOf(messages),
): PruneOutcome {
  const result = [...messages];
  const pruned: PrunedToolOutput[] = [];
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

  // Which output an identical later one is: by call id and occurrence, as ids may be reused.
  const lastSeen = new Map<string, ToolOutputKey>();
  for (let i = messages.length - 1; i >= range.to; i--) {
    const message = messages[i];
    if (message?.role === "tool" && message.tool_call_id)
      lastSeen.set(messageText(message), naming.callOf(message, i));
  }
  const duplicates: Array<[number, ToolOutputKey]> = [];
  for (let i = range.to - 1; i >= range.from; i--) {
    const message = messages[i];
    if (message?.role !== "tool" || !message.tool_call_id || isOpaqueMessage(message)) continue;
    const text = messageText(message);
    if (text.length <= DEFAULTS.prunableOutputChars || isPrunePlaceholder(text)) continue;
    const later = lastSeen.get(text);
    if (later !== undefined) duplicates.push([i, later]);
    lastSeen.set(text, naming.callOf(message, i));
  }

  const entry = (message: ChatMessage, index: number): PrunedToolOutput => {
    const { toolCallId, occurrence, toolName } = naming.callOf(message, index);
    return {
      toolCallId,
      occurrence,
      toolName: toolName ?? "tool",
      content: messageText(message),
      tokens: messageTokens(messages[index] ?? message, model),
    };
  };

  for (const [index, later] of duplicates.reverse()) {
    if (saved >= range.needToSave) break;
    const message = messages[index];
    if (message === undefined) continue;
    const original = entry(message, index);
    replace(
      index,
      { ...message, content: duplicateMarker(original.toolName, naming.reference(later)) },
      original,
    );
  }

  const order = Array.from(
    { length: Math.max(0, range.to - range.from) },
    (_, k) => range.from + k,
  );
  if (range.order === "largest") {
    const size = (i: number) => {
      const message = messages[i];
      return message?.role === "tool" ? messageTokens(message, model) : 0;
    };
    order.sort((a, b) => size(b) - size(a) || a - b);
  }
  for (const i of order) {
    if (saved >= range.needToSave) break;
    const message = result[i];
    if (message?.role !== "tool" || message !== messages[i] || isOpaqueMessage(message)) continue;
    const text = messageText(message);
    if (text.length <= DEFAULTS.prunableOutputChars || isPrunePlaceholder(text)) continue;
    const original = entry(message, i);
    replace(
      i,
      {
        ...message,
        content: pruneMarker(original.toolName, naming.reference(original), original.tokens),
      },
      original,
    );
  }

  for (let i = range.from; i < range.to && saved < range.needToSave; i++) {
    const message = result[i];
    if (message?.role !== "assistant" || isOpaqueMessage(message)) continue;
    const shrunk = shrinkArguments(message);
    if (shrunk) replace(i, shrunk);
  }

  return { messages: result, pruned, saved };
}
