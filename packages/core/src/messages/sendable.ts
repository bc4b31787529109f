/**
 * @module messages/sendable
 * A stored conversation as it can be sent on now. A transcript keeps every
 * message as it was appended, append-only; what goes to a provider must follow
 * its rules. `sendableMessages` makes it so, changing as little as possible:
 * - a message that carries nothing is left out ({@link carriesNothing}): an
 *   empty turn (an aborted answer), or a system or developer message without
 *   text, which Anthropic refuses as an empty block of `system`;
 * - a tool call that a later message interrupted before its result came (the
 *   user spoke, another answer began: Claude Code's Esc) is answered right after
 *   its call by a placeholder saying so ({@link INTERRUPTED_RESULT}, as
 *   `repairMessages` answers a call without result);
 * - a result that came after the message that interrupted its call (a late
 *   result) is placed with its call, in place of the placeholder (a compaction
 *   that folded the interrupted call in wrote one into the summary's view);
 * - a result whose call is no longer in the conversation (a summary replaced
 *   it) is left out, as `repairMessages` drops orphans;
 * - the calls of the last assistant message stay open while only their results
 *   follow it: the agent appends the rest next, and sends the conversation once
 *   they are there.
 * Messages that need no change are the same objects; applied twice, it changes
 * nothing more.
 */

import { INTERRUPTED_RESULT, isEmptyTurn, type RepairResult, repairMessages } from "./repair.js";
import type { ChatMessage } from "./types.js";

export interface Sendable {
  messages: ChatMessage[];
  /** Whether anything was left out, placed, answered or renamed. */
  changed: boolean;
}

/** No text but whitespace, and nothing else (content parts included). */
function holdsNoText(content: ChatMessage["content"]): boolean {
  if (content === null) return true;
  if (typeof content === "string") return content.trim() === "";
  return content.every((part) => part.type === "text" && part.text.trim() === "");
}

/**
 * Whether `message` carries nothing a provider would take: an empty turn (`isEmptyTurn`) or a
 * system or developer message without text.
 */
export function carriesNothing(message: ChatMessage): boolean {
  if (message.role === "system" || message.role === "developer") {
    return holdsNoText(message.content);
  }
  return isEmptyTurn(message);
}

/**
 * `messages` without the placeholder result of a call whose real result came later (before any
 * later call with the same id): the real one is placed with the call instead.
 */
function withoutAnsweredPlaceholders(messages: readonly ChatMessage[]): ChatMessage[] {
  const answeredLater = new Set<string>();
  const dropped = new Set<number>();
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message === undefined) continue;
    if (message.role === "assistant") {
      for (const toolCall of message.tool_calls ?? []) answeredLater.delete(toolCall.id);
      continue;
    }
    const id = message.tool_call_id;
    if (message.role !== "tool" || id === undefined) continue;
    if (message.content === INTERRUPTED_RESULT && answeredLater.has(id)) dropped.add(index);
    else answeredLater.add(id);
  }
  return dropped.size === 0 ? [...messages] : messages.filter((_, index) => !dropped.has(index));
}

/** The index of the last assistant message when only tool messages follow it and it calls tools, else -1. */
function openCallsAt(messages: readonly ChatMessage[]): number {
  let last = messages.length - 1;
  while (last >= 0 && messages[last]?.role === "tool") last--;
  return (messages[last]?.tool_calls?.length ?? 0) > 0 ? last : -1;
}

/** The placeholders `repair` wrote for calls of the message at `index`: the last messages it returned. */
function answersFor(repair: RepairResult, index: number): number {
  return repair.repairs.filter(
    (change) => change.kind === "synthesized_result" && change.index === index,
  ).length;
}

/**
 * Whether `messages` already follow the module's rules, so that {@link sendableMessages} would
 * return them as they are: nothing carries nothing, every tool message answers a distinct call of
 * the assistant message its run of results follows, and every call is answered before the next
 * message but the last assistant message's (open while only results follow it). One pass without
 * the repair's bookkeeping: an agent sends its whole history every turn, and it is almost always
 * so. A history it is not sure of (a reused id, a result out of place) goes the whole way.
 */
export function isSendable(messages: readonly ChatMessage[]): boolean {
  /** The unanswered calls of the assistant message whose results follow; undefined outside a run. */
  let awaiting: Set<string> | undefined;
  for (const message of messages) {
    if (message.role === "tool") {
      const id = message.tool_call_id;
      if (awaiting === undefined || id === undefined || !awaiting.delete(id)) return false;
      continue;
    }
    if (awaiting !== undefined && awaiting.size > 0) return false;
    awaiting = undefined;
    if (carriesNothing(message)) return false;
    const calls =
      message.role === "assistant" && Array.isArray(message.tool_calls) ? message.tool_calls : [];
    if (calls.length === 0) continue;
    awaiting = new Set(calls.map((toolCall) => toolCall.id));
    if (awaiting.size < calls.length) return false;
  }
  return true;
}

/** `messages` as they can be sent on: see the module's rules. */
export function sendableMessages(messages: readonly ChatMessage[]): Sendable {
  if (isSendable(messages)) return { messages: [...messages], changed: false };
  return repairedSendable(messages);
}

/** {@link sendableMessages} the whole way: filtered, placeholders placed, repaired. */
export function repairedSendable(messages: readonly ChatMessage[]): Sendable {
  const meaningful = messages.filter(
    (message) =>
      message.role === "user" || message.role === "assistant" || !carriesNothing(message),
  );
  const kept = withoutAnsweredPlaceholders(meaningful);
  const repair = repairMessages(kept);
  // The open calls at the end are the agent's to answer: their placeholders come last.
  const open = answersFor(repair, openCallsAt(kept));
  const sent = open > 0 ? repair.messages.slice(0, -open) : repair.messages;
  return {
    messages: sent,
    changed: kept.length < messages.length || repair.repairs.length > open,
  };
}
