/**
 * @module gateway/plans/openai-breakpoints
 * OpenAI's explicit cache breakpoints (issue 32, build 3;
 * developers.openai.com/api/docs/guides/prompt-caching): from the GPT-5.6 family on, OpenAI matches
 * a cached prefix only at a breakpoint (its implicit one at the end of the newest message, and those
 * a request marks with `prompt_cache_breakpoint: { mode: "explicit" }` on a content part), never at
 * a shorter unmarked prefix, and takes at most four explicit ones a request. Which models: the
 * catalog's `explicitBreakpoints` (core `modelPricing`), on Chat Completions and Responses; never on
 * earlier models, which refuse the field.
 *
 * When the gateway sends a context in place of a request's history, the breakpoints on it are:
 * - the client's own, on the messages the context still holds as they were sent (the same part,
 *   the same value: a TTL stays); one on a message compaction took moves, as an Anthropic marker
 *   does (`plans/cache-markers`), to the nearest message kept before the next one still there
 *   (after a compaction: the summary, whose breakpoint it then is), or is dropped when none is left;
 * - after a compaction, the gateway's: on the summary, and at the end of the head (the messages
 *   before the summary, which every compaction keeps), so the turn after the next compaction reads
 *   the head from the cache; both placed where the session says they sit (`ContextLayout`), never
 *   found by their text;
 * - never more than four: the client's newest first (what its next turn reads from), then the
 *   summary's, then the client's others (newest first), then the head's (a client that marks its
 *   system prompt has most of the head cached already). OpenAI writes the latest three beside its
 *   implicit one (four in explicit mode): with a fourth, the earliest is read, not written.
 * Chat messages are one per canonical message, so the breakpoints are placed by index. Responses
 * items keep the client's breakpoints as they were sent (each message's original items); the
 * gateway's take the slots those leave, on the last item of their message.
 */

import { type ChatMessage, modelPricing } from "@condense/core";
import { renderMessages } from "../../api/formats";
import type { GatewayProtocol, RequestBody } from "../protocols/protocol";
import { isRecord } from "../protocols/protocol";
import { LAST_BLOCK, type MarkedHistories, markerTargets } from "./cache-markers";
import type { ContextLayout } from "./render-context";

const BREAKPOINT = { mode: "explicit" } as const;
/** The most explicit breakpoints OpenAI takes in one request. */
const MAX_BREAKPOINTS = 4;
/** Roles whose content parts take the gateway's breakpoints (the model's own output parts do not). */
const MARKABLE = new Set(["system", "developer", "user"]);

/** Whether the gateway marks breakpoints on requests of `protocol` for `model`. */
export function takesOpenAIBreakpoints(protocol: GatewayProtocol, model: string): boolean {
  if (protocol.name !== "chat" && protocol.name !== "responses") return false;
  const { caching } = modelPricing(model);
  return caching.kind === "prefix" && (caching.explicitBreakpoints ?? 0) > 0;
}

/** A breakpoint on a content part: message (or item) index, part index, its value. */
interface Breakpoint {
  message: number;
  part: number;
  value: unknown;
}

export interface BreakpointInput extends MarkedHistories {
  protocol: GatewayProtocol;
  body: RequestBody;
  layout: ContextLayout;
}

/** The content parts of `entries` (Chat messages, Responses items) that carry a breakpoint. */
function breakpointsOf(entries: readonly unknown[]): Breakpoint[] {
  const found: Breakpoint[] = [];
  entries.forEach((entry, message) => {
    if (!isRecord(entry) || !Array.isArray(entry.content)) return;
    (entry.content as unknown[]).forEach((part, index) => {
      if (isRecord(part) && part.prompt_cache_breakpoint !== undefined) {
        found.push({ message, part: index, value: part.prompt_cache_breakpoint });
      }
    });
  });
  return found;
}

/** The last message before the summary whose parts take a breakpoint (the head's end), or -1. */
function headEnd(context: readonly ChatMessage[], summary: number): number {
  for (let index = summary - 1; index >= 0; index--) {
    const message = context[index];
    if (message !== undefined && MARKABLE.has(message.role) && message.content !== null) {
      return index;
    }
  }
  return -1;
}

/** The gateway's own breakpoints on `context`, by canonical index, most important first. */
function gatewayMarks(context: readonly ChatMessage[], layout: ContextLayout): number[] {
  const summary = context[layout.summary];
  if (summary === undefined || !MARKABLE.has(summary.role)) return [];
  const head = headEnd(context, layout.summary);
  return head >= 0 ? [layout.summary, head] : [layout.summary];
}

/**
 * `rendered` (Chat messages or Responses items, as `input.context` renders) with the request's own
 * breakpoints and the gateway's placed (see the module); entries are copied where one lands.
 */
export function withOpenAIBreakpoints(rendered: unknown[], input: BreakpointInput): unknown[] {
  const { context } = input;
  const own = gatewayMarks(context, input.layout);
  if (input.protocol.name === "responses") return responsesBreakpoints(rendered, context, own);
  const list = input.body.messages;
  const client = Array.isArray(list) ? breakpointsOf(list) : [];
  if (own.length === 0 && client.length === 0) return rendered;
  const placed: Breakpoint[] = [];
  if (client.length > 0) {
    const targetOf = markerTargets(input);
    for (const mark of client) {
      const target = targetOf(mark.message);
      if (target === undefined) continue;
      const at = target.moved ? markable(rendered, target.at) : target.at;
      if (at >= 0)
        placed.push({ ...mark, message: at, part: target.moved ? LAST_BLOCK : mark.part });
    }
  }
  const [newest, ...older] = placed.sort((a, b) => b.message - a.message || b.part - a.part);
  const [summary, head] = own.map((message) => ({ message, part: LAST_BLOCK, value: BREAKPOINT }));
  const ordered = [newest, summary, ...older, head].filter(
    (mark): mark is Breakpoint => mark !== undefined,
  );
  return placeBreakpoints(rendered, ordered, MAX_BREAKPOINTS, "text");
}

/** The nearest entry at or before `at` whose parts take the gateway's breakpoints, or -1. */
function markable(entries: readonly unknown[], at: number): number {
  for (let index = Math.min(at, entries.length - 1); index >= 0; index--) {
    const entry = entries[index];
    if (isRecord(entry) && MARKABLE.has(String(entry.role)) && hasContent(entry)) return index;
  }
  return -1;
}

function hasContent(entry: Record<string, unknown>): boolean {
  return typeof entry.content === "string" || Array.isArray(entry.content);
}

/**
 * Responses: the client's breakpoints ride on its messages' original items as sent; the
 * gateway's take the slots they leave, on the last item each of their messages renders to.
 */
function responsesBreakpoints(
  items: unknown[],
  context: readonly ChatMessage[],
  own: readonly number[],
): unknown[] {
  if (own.length === 0) return items;
  const slots = MAX_BREAKPOINTS - breakpointsOf(items).length;
  if (slots <= 0) return items;
  // Only the messages up to the summary are rendered again to count their items.
  const last = Math.max(...own);
  const ends: number[] = [];
  let count = 0;
  for (let index = 0; index <= last; index++) {
    const message = context[index];
    if (message !== undefined) count += renderMessages([message], "responses").messages.length;
    ends.push(count - 1);
  }
  const marks = own.map((message) => ({
    message: ends[message] ?? -1,
    part: LAST_BLOCK,
    value: BREAKPOINT,
  }));
  return placeBreakpoints(items, marks, slots, "input_text");
}

/**
 * `entries` with `marks` placed in their order, at most `slots` of them, one a part (a mark on a
 * part that carries one already, placed before or sent so, is dropped); string content becomes one
 * text part (`textType`) to carry one.
 */
function placeBreakpoints(
  entries: unknown[],
  marks: readonly Breakpoint[],
  slots: number,
  textType: "text" | "input_text",
): unknown[] {
  const out = [...entries];
  let placed = 0;
  for (const mark of marks) {
    if (placed >= slots) break;
    const entry = out[mark.message];
    if (!isRecord(entry) || !hasContent(entry)) continue;
    const parts: unknown[] = Array.isArray(entry.content)
      ? [...entry.content]
      : [{ type: textType, text: entry.content }];
    const part = Math.min(mark.part, parts.length - 1);
    const target = parts[part];
    if (!isRecord(target) || target.prompt_cache_breakpoint !== undefined) continue;
    placed++;
    parts[part] = { ...target, prompt_cache_breakpoint: mark.value };
    out[mark.message] = { ...entry, content: parts };
  }
  return out;
}
