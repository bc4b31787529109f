/**
 * @module memory/llm-flush
 * The flush before compaction with a model (Hermes' "memory flush"): one Chat
 * Completions call through the official `openai` SDK (the summarizer's
 * transport: timeout per attempt, bounded retries, typed failures) offering
 * the `memory` tool with `tool_choice: "auto"`, over the user's memories and
 * the range being compacted, secrets withheld before anything leaves the
 * process. The model's text is discarded; only its tool calls count, each
 * checked (`memory/operations`), and a bad one is reported as skipped. A call
 * that fails throws a `SummarizerError` whose `kind` says why, so the caller
 * can fall back to the deterministic pass or go on without a flush.
 * Part of `@condense/core/openai`, so the main entry never loads the SDK.
 */

import { SummarizerError } from "../errors/condense-error.js";
import { toolNamesById } from "../messages/content.js";
import { openConnection } from "../summary/llm/openai-connection.js";
import {
  abortedError,
  type OpenAIConnectionOptions,
  type OpenAITransport,
  type Tally,
  type ToolOffer,
} from "../summary/llm/openai-transport.js";
import { withholdSecrets } from "../summary/redact.js";
import { countTokens } from "../tokens/count.js";
import {
  flushSystemPrompt,
  flushUserPrompt,
  MEMORY_TOOL,
  MEMORY_TOOL_NAME,
  renderRangeMessage,
} from "./flush-prompt.js";
import { type FlushRequest, type FlushResult, OperationChecker } from "./operations.js";

export interface OpenAIMemoryFlushOptions extends OpenAIConnectionOptions {
  /** Retries after a timeout, 429, 5xx or dropped connection. Default 1. */
  maxRetries?: number;
  /** `max_tokens` of the call: room for the tool calls. Default 2,000. */
  maxOutputTokens?: number;
}

/** Something that turns a range into memory operations (the LLM flush here; `deterministicFlush` has the same shape). */
export interface MemoryFlusher {
  /** For logs, e.g. `openai:gpt-4o-mini`. */
  readonly name: string;
  flush(request: FlushRequest): Promise<FlushResult & { calls: number; inputTokens: number }>;
}

/** The tool as the SDK types it (the definition is plain JSON, readonly). */
const TOOL_OFFER: ToolOffer = {
  tools: [MEMORY_TOOL as unknown as ToolOffer["tools"][number]],
  toolChoice: "auto",
};

const DEFAULT_MAX_RETRIES = 1;
const DEFAULT_OUTPUT_TOKENS = 2_000;
/** User messages matter most to memory: each is shown up to this many characters, others less. */
const USER_CHAR_CAP = 6_000;
const OTHER_CHAR_CAP = 2_000;

/** The range rendered to fit `room` tokens: user messages first, then the others newest first; in order. */
function fitRange(
  request: FlushRequest,
  room: number,
  count: (text: string) => number,
): { rendered: string[]; leftOut: number } {
  const toolNames = toolNamesById(request.messages);
  const items = request.messages.map((message, index) => {
    const seq = request.seqs?.[index] ?? null;
    const where = seq === null ? undefined : `seq:${seq}`;
    const text = renderRangeMessage(
      message,
      seq,
      toolNames,
      (raw) => withholdSecrets(raw, where),
      message.role === "user" ? USER_CHAR_CAP : OTHER_CHAR_CAP,
    );
    return { index, text, tokens: count(text) + 2, user: message.role === "user" };
  });
  const order = [
    ...items.filter((item) => item.user).reverse(),
    ...items.filter((item) => !item.user).reverse(),
  ];
  const kept = new Set<number>();
  let used = 0;
  for (const item of order) {
    if (used + item.tokens > room) continue;
    kept.add(item.index);
    used += item.tokens;
  }
  return {
    rendered: items.filter((item) => kept.has(item.index)).map((item) => item.text),
    leftOut: items.length - kept.size,
  };
}

/** Parses one tool call's arguments; a call that is not the memory tool's, or not JSON, is skipped. */
function proposalOf(name: string, args: string): { proposal: unknown } | { reason: string } {
  if (name !== MEMORY_TOOL_NAME)
    return { reason: `unknown tool ${JSON.stringify(name.slice(0, 64))}` };
  try {
    return { proposal: JSON.parse(args) as unknown };
  } catch {
    return { reason: "arguments are not valid JSON" };
  }
}

/** Builds the LLM flush on an OpenAI-compatible Chat Completions endpoint. */
export function openAIMemoryFlusher(options: OpenAIMemoryFlushOptions): MemoryFlusher {
  const connection = openConnection(options, {
    role: "memory flush",
    maxRetries: DEFAULT_MAX_RETRIES,
    maxOutputTokens: DEFAULT_OUTPUT_TOKENS,
  });
  const { model, window, margin, transport } = connection;
  const maxOutput = connection.maxOutputTokens;
  const count = (text: string) => countTokens(text, model);
  const system = flushSystemPrompt();
  return {
    name: `openai:${model}`,
    async flush(request) {
      if (request.signal?.aborted) throw abortedError();
      const memories = request.memories.map((memory) => ({
        ...memory,
        text: withholdSecrets(memory.text),
      }));
      const frame = count(system) + count(flushUserPrompt(memories, [], 0)) + 64;
      const room = window - maxOutput - frame - margin;
      if (room <= 0) {
        throw new SummarizerError(
          "too_large",
          `the user's memories leave no room for the range in the window of ${model} (${window} tokens)`,
        );
      }
      const { rendered, leftOut } = fitRange(request, room, count);
      const prompt = flushUserPrompt(memories, rendered, leftOut);
      const tally: Tally = { calls: 0, inputTokens: 0 };
      let answer: Awaited<ReturnType<OpenAITransport["call"]>>;
      try {
        answer = await transport.call(
          [
            { role: "system", content: system },
            // Rendered piece by piece with secrets withheld; this pass is the backstop.
            { role: "user", content: withholdSecrets(prompt) },
          ],
          maxOutput,
          count(system) + count(prompt),
          request.signal,
          tally,
          TOOL_OFFER,
        );
      } catch (error) {
        if (SummarizerError.isInstance(error)) error.usage = { ...tally };
        throw error;
      }
      // The text (and a refusal) is discarded: only tool calls count.
      const checker = new OperationChecker(request.memories, request.seqs);
      answer.toolCalls.forEach((call, index) => {
        const parsed = proposalOf(call.name, call.arguments);
        if ("reason" in parsed) checker.skip(index, parsed.reason);
        else checker.offer(index, parsed.proposal);
      });
      return { ...checker.done(), calls: tally.calls, inputTokens: tally.inputTokens };
    },
  };
}
