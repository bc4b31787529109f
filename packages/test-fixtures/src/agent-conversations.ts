/**
 * @module agent-conversations
 * Conversations as an agent appends them, interrupted and resumed: random
 * events (a user or system message, an answer, tool calls, a result of one
 * of the calls awaiting one) made into Chat Completions messages, every id
 * unique, a result only for a call that awaits one. Calls are often
 * interrupted and their results may come late, or never; turns may be empty.
 */

import fc from "fast-check";
import { arbText } from "./text-arbitraries.ts";

/** A function call, as Chat Completions carries it. */
export interface AgentToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A Chat Completions message as an agent appends it (the engine's canonical form of it too). */
export type AgentMessage =
  | { role: "user" | "system"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: AgentToolCall[] }
  | { role: "tool"; content: string; tool_call_id: string };

/** One step of an agent's session, in the order it is appended. */
export type AgentEvent =
  | { kind: "user"; text: string }
  | { kind: "system"; text: string }
  | { kind: "say"; text: string }
  | { kind: "call"; text: string | null; calls: number }
  /** The result of the call at `pick` among those awaiting one (nothing when none does). */
  | { kind: "result"; pick: number; text: string };

export const arbAgentEvent: fc.Arbitrary<AgentEvent> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("user" as const), text: arbText }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("system" as const),
      text: fc.constantFrom("", " ", "Be brief."),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("say" as const), text: arbText }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("call" as const),
      text: fc.option(arbText, { nil: null }),
      calls: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant("result" as const), pick: fc.nat(), text: arbText }),
  },
);

/** Where an agent's session stands: the calls awaiting a result, the next call number. */
export interface AgentState {
  awaiting: string[];
  next: number;
}

/**
 * The messages of `events` as a session stores them, after `state` (which is updated): every id
 * unique, a result only for a call that awaits one. Calls are often interrupted (the user speaks,
 * another answer begins) and their results may come late, after the message that interrupted them,
 * or never; turns may be empty.
 */
export function agentMessages(
  events: readonly AgentEvent[],
  state: AgentState = { awaiting: [], next: 0 },
): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (const event of events) {
    if (event.kind === "user" || event.kind === "system") {
      messages.push({ role: event.kind, content: event.text });
    } else if (event.kind === "say") {
      messages.push({ role: "assistant", content: event.text });
    } else if (event.kind === "call") {
      const calls: AgentToolCall[] = Array.from({ length: event.calls }, () => {
        const n = state.next++;
        return {
          id: `call_${n}`,
          type: "function",
          function: { name: "bash", arguments: JSON.stringify({ n }) },
        };
      });
      state.awaiting.push(...calls.map((call) => call.id));
      messages.push({ role: "assistant", content: event.text, tool_calls: calls });
    } else if (state.awaiting.length > 0) {
      const [id] = state.awaiting.splice(event.pick % state.awaiting.length, 1);
      if (id !== undefined) messages.push({ role: "tool", content: event.text, tool_call_id: id });
    }
  }
  return messages;
}

/** Sessions that begin with a user message, as `agentMessages` builds them from random events. */
export const arbAgentConversation: fc.Arbitrary<AgentMessage[]> = fc
  .array(arbAgentEvent, { maxLength: 24 })
  .map((events) => agentMessages([{ kind: "user", text: "start" }, ...events]));
