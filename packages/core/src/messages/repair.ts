/**
 * @module messages/repair
 * Makes the tool-call structure of any canonical message list valid for
 * OpenAI (every call answered exactly once, results right after their
 * assistant message, no call id reused while its call awaits its result), changing as little as possible and
 * reporting every change. Idempotent: repairing a repaired list changes nothing.
 *
 * Rules, in the order they apply:
 * - A tool message answers the nearest earlier assistant message that made a
 *   call with its `tool_call_id` (calls sharing an id in one message take
 *   results in order). Without such a call it is an orphan and is dropped
 *   (`dropped_orphan_result`), as is a second result for a call
 *   (`dropped_duplicate_result`); the first result wins.
 * - A call id used again once the call that used it has its result starts a
 *   new call and is kept (servers that number calls afresh every turn do
 *   this; see `call-ids`). Used again while that call still awaits its result
 *   (or twice in one message), it is renamed to a fresh id
 *   (`renamed_duplicate_call`, `renamedTo`), together with its results.
 * - Results sit right after their assistant message in their original order;
 *   a result found later than that block is moved into it (`moved_result`).
 * - A call without result gets a synthetic tool message after the block
 *   (`synthesized_result`) whose content is {@link INTERRUPTED_RESULT}.
 * - A user or assistant turn that carries nothing (no tool call, no image, no
 *   text but whitespace: an aborted turn) is dropped (`dropped_empty_turn`):
 *   providers reject it. Its neighbours may then share a role, which OpenAI
 *   accepts and Anthropic's conversion merges into one turn. The thinking of
 *   such a turn goes with it (Anthropic ignores an earlier turn's thinking);
 *   a turn that carries opaque Responses items (a compaction item, an unknown
 *   type; reasoning alone does not count) stays.
 *
 * Messages that need no change are returned as the same objects.
 */

import { holdsOpaqueItems } from "./content.js";
import type { ChatMessage, ToolCall } from "./types.js";

export type RepairKind =
  | "dropped_empty_turn"
  | "dropped_orphan_result"
  | "synthesized_result"
  | "moved_result"
  | "dropped_duplicate_result"
  | "renamed_duplicate_call";

export interface Repair {
  kind: RepairKind;
  /** Input index of the message concerned: the tool message, the dropped turn, or for `synthesized_result`/`renamed_duplicate_call` the assistant message. */
  index: number;
  /** The call id as it was in the input. */
  toolCallId?: string;
  /** For `renamed_duplicate_call`: the new id of the call and its result. */
  renamedTo?: string;
}

export interface RepairResult {
  messages: ChatMessage[];
  repairs: Repair[];
}

/** Content of the tool message synthesized for a call that has no result. */
export const INTERRUPTED_RESULT = "[no result: this tool call was interrupted before it returned]";

function callsOf(message: ChatMessage | undefined): readonly ToolCall[] {
  return message?.role === "assistant" && Array.isArray(message.tool_calls)
    ? message.tool_calls
    : [];
}

/** Where a call lives: assistant index and position in its `tool_calls`. */
interface Slot {
  assistant: number;
  call: number;
}

function fresh(id: string, used: Set<string>): string {
  let n = 2;
  while (used.has(`${id}_${n}`)) n++;
  const name = `${id}_${n}`;
  used.add(name);
  return name;
}

/** Repairs tool-call structure so that the result passes `validateMessages(…, "openai")`. */
export function repairMessages(messages: readonly ChatMessage[]): RepairResult {
  const repairs: Repair[] = [];

  // 1. Which result answers which call: nearest earlier assistant with that id.
  const latest = new Map<string, number>(); // call id -> latest assistant index with it
  const answer = new Map<number, Slot>(); // tool message index -> slot it answers
  const resultsOf = new Map<number, number[]>(); // assistant index -> tool indices, input order
  const filled = new Set<string>(); // "assistant:call" slots already answered
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      const id = message.tool_call_id;
      const assistant = id === undefined ? undefined : latest.get(id);
      if (id === undefined || assistant === undefined) {
        repairs.push(withId({ kind: "dropped_orphan_result", index }, id));
        return;
      }
      const calls = callsOf(messages[assistant]);
      const call = calls.findIndex(
        (candidate, at) => candidate.id === id && !filled.has(`${assistant}:${at}`),
      );
      if (call === -1) {
        repairs.push({ kind: "dropped_duplicate_result", index, toolCallId: id });
        return;
      }
      filled.add(`${assistant}:${call}`);
      answer.set(index, { assistant, call });
      const list = resultsOf.get(assistant) ?? [];
      list.push(index);
      resultsOf.set(assistant, list);
      return;
    }
    for (const call of callsOf(message)) latest.set(call.id, index);
  });

  // 2. An id reused before the call that used it got its result is ambiguous: the later call gets a
  // fresh id. Reused after that result, it is a new call and keeps its id.
  const used = new Set<string>();
  messages.forEach((message) => {
    for (const call of callsOf(message)) used.add(call.id);
    if (message.role === "tool" && message.tool_call_id !== undefined)
      used.add(message.tool_call_id);
  });
  const resultAt = new Map<string, number>(); // "assistant:call" -> index of its result
  for (const [resultIndex, slot] of answer)
    resultAt.set(`${slot.assistant}:${slot.call}`, resultIndex);
  const previous = new Map<string, string>(); // call id -> "assistant:call" of its latest use
  const renamed = new Map<string, string>(); // "assistant:call" -> new id
  messages.forEach((message, index) => {
    callsOf(message).forEach((call, at) => {
      const before = previous.get(call.id);
      previous.set(call.id, `${index}:${at}`);
      if (before === undefined) return;
      const answeredAt = resultAt.get(before);
      if (answeredAt !== undefined && answeredAt < index) return;
      const name = fresh(call.id, used);
      renamed.set(`${index}:${at}`, name);
      repairs.push({ kind: "renamed_duplicate_call", index, toolCallId: call.id, renamedTo: name });
    });
  });

  // 3. Emit: each assistant followed by its results, then synthesized ones; empty turns go.
  const out: ChatMessage[] = [];
  messages.forEach((message, index) => {
    if (message.role === "tool") return;
    if (isEmptyTurn(message)) {
      repairs.push({ kind: "dropped_empty_turn", index });
      return;
    }
    const calls = callsOf(message);
    if (calls.length === 0) {
      out.push(message);
      return;
    }
    const ids = calls.map((call, at) => renamed.get(`${index}:${at}`) ?? call.id);
    const changed = ids.some((id, at) => id !== calls[at]?.id);
    out.push(
      changed
        ? { ...message, tool_calls: calls.map((call, at) => ({ ...call, id: ids[at] ?? call.id })) }
        : message,
    );
    let blockEnd = index + 1;
    while (messages[blockEnd]?.role === "tool") blockEnd++;
    const answered = new Set<number>();
    for (const resultIndex of resultsOf.get(index) ?? []) {
      const result = messages[resultIndex];
      const slot = answer.get(resultIndex);
      if (result === undefined || slot === undefined) continue;
      answered.add(slot.call);
      if (resultIndex >= blockEnd) {
        repairs.push({
          kind: "moved_result",
          index: resultIndex,
          toolCallId: result.tool_call_id ?? "",
        });
      }
      const id = ids[slot.call] ?? result.tool_call_id;
      out.push(id === result.tool_call_id ? result : { ...result, tool_call_id: id });
    }
    calls.forEach((call, at) => {
      if (answered.has(at)) return;
      const id = ids[at] ?? call.id;
      repairs.push({ kind: "synthesized_result", index, toolCallId: call.id });
      out.push({ role: "tool", content: INTERRUPTED_RESULT, tool_call_id: id });
    });
  });

  repairs.sort((a, b) => a.index - b.index);
  return { messages: out, repairs };
}

/**
 * A user or assistant turn that carries nothing (no tool call, no image, no text but whitespace,
 * no opaque Responses item but reasoning): an aborted turn, which providers reject and
 * `repairMessages` drops.
 */
export function isEmptyTurn(message: ChatMessage): boolean {
  if (message.role !== "user" && message.role !== "assistant") return false;
  if (callsOf(message).length > 0 || holdsOpaqueItems(message)) return false;
  const content = message.content;
  if (content === null) return true;
  if (typeof content === "string") return content.trim() === "";
  return content.every((part) => part.type === "text" && part.text.trim() === "");
}

function withId(repair: Repair, id: string | undefined): Repair {
  if (id !== undefined) repair.toolCallId = id;
  return repair;
}
