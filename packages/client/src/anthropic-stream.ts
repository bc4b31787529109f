/**
 * @module anthropic-stream
 * Rebuilds the assistant turn of a streamed Anthropic message from its events:
 * each content block from its `content_block_start`, text, thinking and
 * signature deltas concatenated, a `tool_use` input from its JSON pieces, and
 * the prompt tokens from `message_start` (input plus cache reads and writes).
 * The SDK's `MessageStream` does the same for its own callers; a raw
 * `create({ stream: true })` stream has nobody doing it, so this does.
 */

import type { ContentBlock, RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import type { InputMessage, UsageReport } from "./api-types.js";
import { anthropicUsage } from "./usage/usage-report.js";

/** Block types the session stores (server-tool blocks are the provider's business). */
const STORABLE = new Set(["text", "tool_use", "thinking", "redacted_thinking"]);

/** The blocks of an answer the session can store, as Anthropic wants them sent back. */
export function storableBlocks(content: readonly ContentBlock[]): InputMessage[] {
  const blocks: InputMessage[] = [];
  for (const block of content) {
    if (!STORABLE.has(block.type)) continue;
    switch (block.type) {
      case "text":
        blocks.push({
          type: "text",
          text: block.text,
          ...(block.citations != null && block.citations.length > 0
            ? { citations: block.citations }
            : {}),
        });
        break;
      case "tool_use":
        blocks.push({ type: "tool_use", id: block.id, name: block.name, input: block.input });
        break;
      case "thinking":
        // Anthropic requires thinking blocks back unmodified, signature included.
        blocks.push({ type: "thinking", thinking: block.thinking, signature: block.signature });
        break;
      case "redacted_thinking":
        blocks.push({ type: "redacted_thinking", data: block.data });
        break;
    }
  }
  return blocks;
}

/** The assistant turn to append for an answer, or none when nothing in it can be stored. */
export function assistantTurn(content: readonly ContentBlock[]): InputMessage[] {
  const blocks = storableBlocks(content);
  return blocks.length === 0 ? [] : [{ role: "assistant", content: blocks }];
}

type Block = Record<string, unknown> & { type: string };

export class AnthropicStreamAssembler {
  readonly #blocks = new Map<number, Block>();
  readonly #json = new Map<number, string>();
  #usage: UsageReport | undefined;
  #stopped = false;

  add(event: RawMessageStreamEvent): void {
    switch (event.type) {
      case "message_start":
        this.#usage = anthropicUsage(event.message.usage);
        return;
      case "content_block_start":
        this.#blocks.set(event.index, { ...event.content_block });
        return;
      case "content_block_delta": {
        const block = this.#blocks.get(event.index);
        if (block === undefined) return;
        const delta = event.delta;
        if (delta.type === "text_delta") block.text = `${String(block.text ?? "")}${delta.text}`;
        else if (delta.type === "thinking_delta")
          block.thinking = `${String(block.thinking ?? "")}${delta.thinking}`;
        else if (delta.type === "signature_delta")
          block.signature = `${String(block.signature ?? "")}${delta.signature}`;
        else if (delta.type === "input_json_delta")
          this.#json.set(event.index, `${this.#json.get(event.index) ?? ""}${delta.partial_json}`);
        else if (delta.type === "citations_delta") {
          const citations = Array.isArray(block.citations) ? block.citations : [];
          block.citations = [...citations, delta.citation];
        }
        return;
      }
      case "content_block_stop": {
        const json = this.#json.get(event.index);
        const block = this.#blocks.get(event.index);
        if (json !== undefined && block !== undefined) {
          // An input streamed in pieces replaces the empty `{}` of its start event.
          block.input = json === "" ? {} : JSON.parse(json);
        }
        return;
      }
      case "message_delta": {
        // The delta's usage, when it has one, is the final count.
        this.#usage = anthropicUsage(event.usage) ?? this.#usage;
        return;
      }
      case "message_stop":
        this.#stopped = true;
        return;
    }
  }

  /** Whether the stream reached `message_stop` (an interrupted stream did not). */
  get finished(): boolean {
    return this.#stopped;
  }

  /** The prompt's usage (every input token, the cache's reads and writes among them). */
  get usage(): UsageReport | undefined {
    return this.#usage;
  }

  /** The assistant turn to append (empty when nothing in it can be stored). */
  turn(): InputMessage[] {
    const blocks = [...this.#blocks.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, block]) => block as unknown as ContentBlock);
    return assistantTurn(blocks);
  }
}
