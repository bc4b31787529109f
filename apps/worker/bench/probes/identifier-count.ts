/**
 * @module bench/probes/identifier-count
 * The identifiers a conversation has named so far (`extractIdentifiers` of the engine over user
 * and assistant text and tool-call arguments, tool-call ids left out: each call adds one, and its
 * output is fetched back by it), and how many of them a context still holds verbatim: the issue's
 * "identifiers at 100%", measured on what each policy sends.
 */

import { type ChatMessage, extractIdentifiers, messageText, toolCallInput } from "@condense/core";

function argumentValues(input: string): string {
  const out: string[] = [];
  const walk = (value: unknown) => {
    if (typeof value === "string") out.push(value);
    else if (Array.isArray(value)) for (const item of value) walk(item);
    else if (typeof value === "object" && value !== null)
      for (const item of Object.values(value)) walk(item);
  };
  try {
    walk(JSON.parse(input));
  } catch {
    return input;
  }
  return out.join("\n");
}

/** The identifiers `history` named, in order, without repeats. */
export function namedIdentifiers(history: readonly ChatMessage[]): string[] {
  const found = new Set<string>();
  const callIds = new Set<string>();
  for (const message of history) {
    if (message.role !== "user" && message.role !== "assistant") continue;
    for (const id of extractIdentifiers(messageText(message))) found.add(id);
    for (const call of message.role === "assistant" ? (message.tool_calls ?? []) : []) {
      callIds.add(call.id);
      for (const id of extractIdentifiers(argumentValues(toolCallInput(call)))) found.add(id);
    }
  }
  return [...found].filter((id) => !callIds.has(id) && id.trim() !== "");
}

/** How many of `identifiers` stand verbatim in `context` (its text and tool calls, as JSON). */
export function identifiersKept(
  identifiers: readonly string[],
  context: readonly ChatMessage[],
): number {
  const text = JSON.stringify(context.map((message) => [message.content, message.tool_calls]));
  return identifiers.filter((id) => text.includes(JSON.stringify(id).slice(1, -1))).length;
}
