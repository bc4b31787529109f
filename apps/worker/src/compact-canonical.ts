/**
 * @module compact-canonical
 * `compact()` on canonical messages without losing their provider data.
 *
 * Messages appended as Anthropic or Responses keep what only that format can
 * say (thinking blocks, reasoning and compaction items) in `provider_data`.
 * The engine reads `format: "openai"` input through `parseMessages`, which
 * drops that field, so every message it keeps would come back without it.
 * The provider data is therefore put back here on each output message that
 * stands for an input message: matched by tool-call id for tool traffic and by
 * role, content and name otherwise, aligned in order (the head, the tail, then
 * anything kept in between), so that a pruned tool output keeps its data and
 * a repeated message does not take another's.
 */

import { type ChatMessage, type CompactOptions, type CompactResult, compact } from "@condense/core";

/** Compacts canonical `messages` (format openai) and keeps the provider data of what survives. */
export async function compactCanonical(
  input: { model: string; messages: ChatMessage[] },
  options: CompactOptions,
): Promise<CompactResult<ChatMessage>> {
  const result = await compact(input, options);
  return { ...result, messages: restoreProviderData(input.messages, result.messages) };
}

/** JSON with object keys sorted, so equal values give equal text whoever built them. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${stableJson(item)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** What makes an output message the same message as an input one. */
function identity(message: ChatMessage): string {
  if (message.role === "tool") return `tool\u0000${message.tool_call_id ?? ""}`;
  const calls = message.tool_calls ?? [];
  if (calls.length > 0) return `calls\u0000${calls.map((call) => call.id).join("\u0000")}`;
  return `${message.role}\u0000${message.name ?? ""}\u0000${stableJson(message.content)}`;
}

/**
 * `output` with the `provider_data` of the `input` message each one stands for. Output messages
 * with no counterpart (the summary) and counterparts without provider data are left as they are.
 */
export function restoreProviderData(
  input: readonly ChatMessage[],
  output: readonly ChatMessage[],
): ChatMessage[] {
  if (!input.some((message) => message.provider_data !== undefined)) return [...output];
  const inKeys = input.map(identity);
  const outKeys = output.map(identity);
  /** Output index → input index. */
  const source = new Map<number, number>();

  // The head: kept from the start, position for position.
  let head = 0;
  while (head < output.length && head < input.length && outKeys[head] === inKeys[head]) {
    source.set(head, head);
    head++;
  }
  // The tail: kept up to the end, position for position.
  let tail = 0;
  while (
    output.length - 1 - tail >= head &&
    input.length - 1 - tail >= head &&
    outKeys[output.length - 1 - tail] === inKeys[input.length - 1 - tail]
  ) {
    source.set(output.length - 1 - tail, input.length - 1 - tail);
    tail++;
  }
  // Anything kept in between keeps its order.
  let cursor = head;
  for (let out = head; out < output.length - tail; out++) {
    for (let candidate = cursor; candidate < input.length - tail; candidate++) {
      if (inKeys[candidate] === outKeys[out]) {
        source.set(out, candidate);
        cursor = candidate + 1;
        break;
      }
    }
  }

  return output.map((message, index) => {
    const from = source.get(index);
    const data = from === undefined ? undefined : input[from]?.provider_data;
    return data === undefined || message.provider_data !== undefined
      ? message
      : { ...message, provider_data: data };
  });
}
