/**
 * @module gateway/protocols/anthropic-protocol
 * Anthropic Messages through the gateway: the history is `system` and
 * `messages`, the answer is the response's `content` blocks as one assistant
 * message, a stream is `message_start`, content blocks built from their
 * deltas, `message_delta` and `message_stop`; the prompt's count is
 * `input_tokens` plus the tokens written to and read from the prompt cache.
 * Blocks of any type are kept as they start (a server tool's result comes
 * whole), their deltas applied (a server tool's input is JSON deltas, as a
 * tool's); a delta of a kind this does not know leaves the answer unstored.
 * The stream's answer is assembled here because the SDK's own accumulator
 * only reads the SDK's streams, and the gateway passes the upstream's bytes
 * through untouched.
 */

import type { Message, RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import { type CacheMiss, type ProviderUsage, recallAnthropicTool } from "@condense/core";
import {
  type AnswerToolCall,
  count,
  eventData,
  type GatewayProtocol,
  isRecord,
  type ProtocolAnswer,
  protocolAnswer,
  type StreamAccumulator,
  type ToolRoundHooks,
  toolsField,
} from "./protocol";

/**
 * Every token of the prompt (uncached, written to the cache and read from it), the cached ones, and
 * why the cache missed when the response's `diagnostics` say (a request that opted in to them).
 */
function promptUsage(usage: unknown, diagnostics?: unknown): ProviderUsage | undefined {
  if (!isRecord(usage)) return undefined;
  const input = count(usage.input_tokens);
  if (input === undefined) return undefined;
  const cacheWriteTokens = count(usage.cache_creation_input_tokens) ?? 0;
  const cacheReadTokens = count(usage.cache_read_input_tokens) ?? 0;
  const cacheMiss = cacheMissOf(diagnostics);
  return {
    inputTokens: input + cacheWriteTokens + cacheReadTokens,
    cacheReadTokens,
    cacheWriteTokens,
    ...(cacheMiss !== undefined ? { cacheMiss } : {}),
  };
}

/** `diagnostics.cache_miss_reason` (null while Anthropic's comparison still runs, or when none). */
function cacheMissOf(diagnostics: unknown): CacheMiss | undefined {
  if (!isRecord(diagnostics) || !isRecord(diagnostics.cache_miss_reason)) return undefined;
  const reason = diagnostics.cache_miss_reason;
  if (typeof reason.type !== "string") return undefined;
  return {
    reason: reason.type.slice(0, 64),
    missedTokens: count(reason.cache_missed_input_tokens) ?? null,
  };
}

/** A stream's later usage keeps the cache miss its `message_start` told. */
function withMiss(
  later: ProviderUsage | undefined,
  start: ProviderUsage | undefined,
): ProviderUsage | undefined {
  return later === undefined || start?.cacheMiss === undefined
    ? later
    : { ...later, cacheMiss: start.cacheMiss };
}

/** A message id as Anthropic gives it (`msg_…`, bounded: it is stored and sent back), or undefined. */
function answerId(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" && value.length <= 200 ? value : undefined;
}

function withId(answer: ProtocolAnswer, id: string | undefined): ProtocolAnswer {
  return id === undefined ? answer : { ...answer, id };
}

/** The answer's tokens (a stream's `message_delta` carries the running total). */
function answerTokens(usage: unknown): number | undefined {
  return isRecord(usage) ? count(usage.output_tokens) : undefined;
}

type Block = Record<string, unknown>;

function anthropicAccumulator(): StreamAccumulator {
  const blocks: Block[] = [];
  const json = new Map<number, string>();
  let usage: ProviderUsage | undefined;
  let outputTokens: number | undefined;
  let id: string | undefined;
  let started = false;
  let stopped = false;
  let failed = false;
  // A delta of a kind this does not know: the block cannot be rebuilt, so the answer is not stored
  // (the next turn's history carries it exactly; a wrong copy would not match it).
  let unread = false;
  return {
    event(event) {
      const data = eventData(event) as Partial<RawMessageStreamEvent> | undefined;
      switch (data?.type ?? event.event) {
        case "message_start":
          started = true;
          usage = promptUsage(
            (data as { message?: Partial<Message> }).message?.usage,
            (data as { message?: Partial<Message> }).message?.diagnostics,
          );
          outputTokens = answerTokens((data as { message?: Partial<Message> }).message?.usage);
          id = answerId((data as { message?: Partial<Message> }).message?.id);
          return;
        case "content_block_start": {
          const start = data as { index?: unknown; content_block?: unknown };
          const index = count(start.index);
          if (index !== undefined && isRecord(start.content_block)) {
            blocks[index] = { ...start.content_block };
          }
          return;
        }
        case "content_block_delta": {
          const { index: rawIndex, delta } = data as { index?: unknown; delta?: unknown };
          const index = count(rawIndex);
          const block = index === undefined ? undefined : blocks[index];
          if (index === undefined || block === undefined || !isRecord(delta)) return;
          if (delta.type === "text_delta" && typeof delta.text === "string") {
            block.text = `${typeof block.text === "string" ? block.text : ""}${delta.text}`;
          } else if (delta.type === "input_json_delta" && typeof delta.partial_json === "string") {
            json.set(index, (json.get(index) ?? "") + delta.partial_json);
          } else if (delta.type === "thinking_delta" && typeof delta.thinking === "string") {
            block.thinking = `${typeof block.thinking === "string" ? block.thinking : ""}${delta.thinking}`;
          } else if (delta.type === "signature_delta" && typeof delta.signature === "string") {
            block.signature = delta.signature;
          } else if (delta.type === "citations_delta" && delta.citation !== undefined) {
            block.citations = [
              ...(Array.isArray(block.citations) ? block.citations : []),
              delta.citation,
            ];
          } else {
            unread = true;
          }
          return;
        }
        case "content_block_stop": {
          const index = count((data as { index?: unknown }).index);
          const text = index === undefined ? undefined : json.get(index);
          const block = index === undefined ? undefined : blocks[index];
          if (text === undefined || block === undefined) return;
          try {
            block.input = text === "" ? {} : (JSON.parse(text) as unknown);
          } catch {
            failed = true;
          }
          return;
        }
        case "message_delta":
          usage = withMiss(promptUsage((data as { usage?: unknown }).usage), usage) ?? usage;
          outputTokens = answerTokens((data as { usage?: unknown }).usage) ?? outputTokens;
          return;
        case "message_stop":
          stopped = true;
          return;
        case "error":
          failed = true;
          return;
        default:
          return;
      }
    },
    result() {
      if (!started || !stopped || failed || unread) return undefined;
      const content = blocks.filter((block) => block !== undefined);
      return withId(protocolAnswer([{ role: "assistant", content }], usage, outputTokens), id);
    },
  };
}

/** The content blocks of the answer's assistant message. */
function contentBlocks(answer: ProtocolAnswer): unknown[] {
  const message = answer.messages[0];
  return isRecord(message) && Array.isArray(message.content) ? message.content : [];
}

const anthropicTools: ToolRoundHooks = {
  ...toolsField(recallAnthropicTool),
  calls: (answer) =>
    contentBlocks(answer).flatMap((block): AnswerToolCall[] =>
      isRecord(block) && block.type === "tool_use" && typeof block.id === "string"
        ? [{ id: block.id, name: String(block.name ?? ""), arguments: block.input }]
        : [],
    ),
  withResults(body, answer, results) {
    // The blocks go back unchanged (thinking blocks keep their signatures, as Anthropic requires).
    const assistant = { role: "assistant", content: contentBlocks(answer) };
    const answers = {
      role: "user",
      content: results.map((result) => ({
        type: "tool_result",
        tool_use_id: result.id,
        content: result.text,
      })),
    };
    const messages = Array.isArray(body.messages) ? body.messages : [];
    return { ...body, messages: [...messages, assistant, answers] };
  },
  // The tools stay declared: Anthropic refuses a history with tool_use blocks and no tools.
  withoutToolCalls: (body) => ({ ...body, tool_choice: { type: "none" } }),
};

export const anthropicProtocol: GatewayProtocol = {
  name: "anthropic",
  format: "anthropic",
  history(body) {
    if (!Array.isArray(body.messages)) return undefined;
    return body.system === undefined
      ? { messages: body.messages }
      : { messages: body.messages, system: body.system };
  },
  withContext(body, context) {
    const { system: _replaced, ...rest } = body;
    return context.system === undefined
      ? { ...rest, messages: context.messages }
      : { ...rest, system: context.system, messages: context.messages };
  },
  // `system` is the history's first message (canonical), counted with it.
  overheadFields: ["tools"],
  maxOutputTokens(body) {
    return count(body.max_tokens);
  },
  answer(body): ProtocolAnswer | undefined {
    if (!isRecord(body) || !Array.isArray(body.content)) return undefined;
    const answer = protocolAnswer(
      [{ role: "assistant", content: body.content }],
      promptUsage(body.usage, body.diagnostics),
      answerTokens(body.usage),
    );
    return withId(answer, answerId(body.id));
  },
  accumulator: anthropicAccumulator,
  tools: anthropicTools,
  // The gateway's stable code rides beside Anthropic's fields (its SDK reads `type` and `message`
  // and keeps the rest in `error.error`), as OpenAI's shape carries it in `code`.
  errorBody({ status, code, message }) {
    return { type: "error", error: { type: anthropicErrorType(status), message, code } };
  },
  streamError(_code, message) {
    const body = { type: "error", error: { type: "api_error", message } };
    return `event: error\ndata: ${JSON.stringify(body)}\n\n`;
  },
};

/** Anthropic's error `type` for a status, as its API names them. */
function anthropicErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 504) return "timeout_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}
