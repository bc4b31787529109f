/**
 * @module messages/call-ids
 * Tool-call ids that come back. Several providers and local servers number
 * calls `call_0`, `call_1`… afresh on every turn, so an id may be used again
 * once the call that used it has its result: the later call is a new
 * *occurrence* of the id, and a result answers the latest call with its id.
 * An id used again while its earlier call still awaits a result (or twice in
 * one message) is ambiguous, because a result could answer either call.
 *
 * These rules live here once, for parsing, validation, repair, compaction and
 * the service's append (which starts the tracker from a session's stored state).
 */

import type { MessageProblem } from "../errors/condense-error.js";
import { toolCallName } from "./content.js";
import type { ChatMessage } from "./types.js";

/** Where a call id stands after the messages seen so far. */
export interface CallIdState {
  /** How many calls used the id; the latest one is this occurrence (1 for the first). */
  occurrence: number;
  /** Whether the latest call with the id has its result. */
  answered: boolean;
  /** Where that latest call is: a message index, or a session's transcript seq. */
  at: number;
}

/** What a result does: answer the latest call with its id, or answer none (orphan) or an answered one (duplicate). */
export type ResultKind = "answer" | "orphan" | "duplicate";

/** Which call of a conversation a tool output belongs to: its id and the occurrence of that id. */
export interface ToolOutputKey {
  toolCallId: string;
  /** 1 for the first call with this id, 2 for the next one that reuses it… (0: a result that answers no call). */
  occurrence: number;
}

/** Follows calls and results in order and says which call each one is. */
export class ToolCallTracker {
  readonly #states: Map<string, CallIdState>;

  constructor(initial: Iterable<readonly [string, CallIdState]> = []) {
    this.#states = new Map(initial);
  }

  state(id: string): CallIdState | undefined {
    return this.#states.get(id);
  }

  /**
   * Records a call at `at`. `unanswered` is the earlier call with the same id when that one still
   * awaits its result: the reuse is ambiguous (the call is recorded all the same).
   */
  call(id: string, at: number): { occurrence: number; unanswered: CallIdState | undefined } {
    const before = this.#states.get(id);
    const occurrence = (before?.occurrence ?? 0) + 1;
    this.#states.set(id, { occurrence, answered: false, at });
    return {
      occurrence,
      unanswered: before !== undefined && !before.answered ? before : undefined,
    };
  }

  /** Records a result for `id`: it answers the latest call with that id if that call has none yet. */
  result(id: string): { kind: ResultKind; occurrence: number; call: CallIdState | undefined } {
    const state = this.#states.get(id);
    if (state === undefined) return { kind: "orphan", occurrence: 0, call: undefined };
    if (state.answered) return { kind: "duplicate", occurrence: state.occurrence, call: state };
    state.answered = true;
    return { kind: "answer", occurrence: state.occurrence, call: state };
  }
}

/** The text of a problem for a call whose id is reused while `earlier` still awaits its result. */
export function reusedCallMessage(id: string, earlier: string): string {
  return `tool call id \`${id}\` is used again while ${earlier} still awaits its result, so a result could answer either; send that call's result before reusing the id, or give this call a unique id`;
}

/** The same, for a call of message `index` whose id message `earlier` of the list made. */
export function reusedInListMessage(id: string, earlier: number, index: number): string {
  return reusedCallMessage(
    id,
    earlier === index ? "another call of this message" : `the call of message ${earlier}`,
  );
}

/**
 * The calls of `messages` whose id is reused while an earlier call with it still awaits its result
 * (twice in one message included), as `duplicate_tool_call_id` problems. Reusing the id of an
 * answered call is fine: it starts a new call.
 */
export function ambiguousCallIds(messages: readonly ChatMessage[]): MessageProblem[] {
  const tracker = new ToolCallTracker();
  const problems: MessageProblem[] = [];
  messages.forEach((message, index) => {
    if (message.role === "tool") {
      if (message.tool_call_id !== undefined) tracker.result(message.tool_call_id);
      return;
    }
    if (message.role !== "assistant") return;
    (message.tool_calls ?? []).forEach((call, callIndex) => {
      const { unanswered } = tracker.call(call.id, index);
      if (unanswered === undefined) return;
      problems.push({
        index,
        path: `tool_calls[${callIndex}].id`,
        kind: "duplicate_tool_call_id",
        message: reusedInListMessage(call.id, unanswered.at, index),
      });
    });
  });
  return problems;
}

/** A tool message's call: its key and the name of the tool it ran. */
export interface ToolResultCall extends ToolOutputKey {
  toolName: string | undefined;
}

/**
 * For each tool message of `messages` (by index), the call it answers: the id, its occurrence and
 * the tool's name. Keys by id alone would confuse two calls that share an id.
 */
export function toolResultCalls(messages: readonly ChatMessage[]): Map<number, ToolResultCall> {
  const tracker = new ToolCallTracker();
  const names = new Map<string, string>(); // "occurrence:id" -> tool name
  const calls = new Map<number, ToolResultCall>();
  messages.forEach((message, index) => {
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) {
        const { occurrence } = tracker.call(call.id, index);
        names.set(`${occurrence}:${call.id}`, toolCallName(call));
      }
      return;
    }
    if (message.role !== "tool" || message.tool_call_id === undefined) return;
    const id = message.tool_call_id;
    const { occurrence } = tracker.result(id);
    calls.set(index, { toolCallId: id, occurrence, toolName: names.get(`${occurrence}:${id}`) });
  });
  return calls;
}

/** The ids that more than one call of `messages` uses. */
export function reusedCallIds(messages: readonly ChatMessage[]): Set<string> {
  const seen = new Set<string>();
  const reused = new Set<string>();
  for (const message of messages) {
    for (const call of message.role === "assistant" ? (message.tool_calls ?? []) : []) {
      if (seen.has(call.id)) reused.add(call.id);
      seen.add(call.id);
    }
  }
  return reused;
}
