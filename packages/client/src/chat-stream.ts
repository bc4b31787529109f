/**
 * @module chat-stream
 * Rebuilds the assistant message of a streamed Chat Completion from its
 * chunks: content and refusal deltas concatenated, tool calls assembled by
 * their `index` (id and name from the first delta that has them, argument
 * pieces concatenated), and the `usage` of the final chunk when the stream
 * carried one. Only choice 0 is kept: it is the one a session continues with.
 */

import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { UsageReport } from "./api-types.js";
import { chatUsage } from "./usage/usage-report.js";

export interface AssembledToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** The assistant message as the session stores it. */
export interface AssembledMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: AssembledToolCall[];
}

export class ChatStreamAssembler {
  #content = "";
  #refusal = "";
  #sawContent = false;
  #toolCalls = new Map<number, AssembledToolCall>();
  #finishReason: string | null = null;
  #usage: UsageReport | undefined;

  add(chunk: ChatCompletionChunk): void {
    this.#usage = chatUsage(chunk.usage) ?? this.#usage;
    for (const choice of chunk.choices ?? []) {
      if (choice.index !== 0) continue;
      const delta = choice.delta;
      if (typeof delta?.content === "string") {
        this.#content += delta.content;
        this.#sawContent = true;
      }
      if (typeof delta?.refusal === "string") this.#refusal += delta.refusal;
      for (const call of delta?.tool_calls ?? []) {
        const current = this.#toolCalls.get(call.index) ?? {
          id: "",
          type: "function" as const,
          function: { name: "", arguments: "" },
        };
        if (call.id !== undefined && call.id !== "") current.id = call.id;
        if (call.function?.name !== undefined && call.function.name !== "") {
          // Most servers send the name once; a few repeat it whole on every delta.
          if (call.function.name !== current.function.name)
            current.function.name += call.function.name;
        }
        if (call.function?.arguments !== undefined)
          current.function.arguments += call.function.arguments;
        this.#toolCalls.set(call.index, current);
      }
      if (choice.finish_reason != null) this.#finishReason = choice.finish_reason;
    }
  }

  /** Whether the stream ended with a finish reason (an interrupted stream has none). */
  get finished(): boolean {
    return this.#finishReason !== null;
  }

  /** The prompt's usage the server reported (`prompt_tokens`, cached ones), if the stream carried it. */
  get usage(): UsageReport | undefined {
    return this.#usage;
  }

  message(): AssembledMessage {
    const calls = [...this.#toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    let content: string | null = this.#sawContent ? this.#content : null;
    if (content === null || content === "") {
      // A refusal has no content; keep its text so the session shows what the model said.
      if (this.#refusal !== "") content = this.#refusal;
    }
    if (calls.length === 0) return { role: "assistant", content: content ?? "" };
    return { role: "assistant", content: content === "" ? null : content, tool_calls: calls };
  }
}
