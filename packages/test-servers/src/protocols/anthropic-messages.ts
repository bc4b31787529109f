/**
 * @module protocols/anthropic-messages
 * Anthropic's Messages API (`POST …/v1/messages`) for the test servers: the
 * answer as Anthropic sends it — a message, or its event stream
 * (`message_start`, a `ping`, content blocks with their deltas: a signed
 * thinking block first when there is reasoning, text, `tool_use` with its
 * input as JSON deltas, blocks without input whole; `message_delta` with the
 * stop reason and usage, `message_stop`); content blocks given as they are
 * stream the same way. Anthropic's errors, and its rules
 * (`rules/anthropic-rules`).
 */

import type {
  ContentBlock,
  Message,
  RawMessageStreamEvent,
  StopReason,
  Usage,
} from "@anthropic-ai/sdk/resources/messages/messages";
import { objects } from "../json.ts";
import type { Answer } from "../reply.ts";
import { anthropicViolation } from "../rules/anthropic-rules.ts";
import { sign } from "../rules/signatures.ts";
import type { Violation } from "../rules/violation.ts";
import { type AnswerContext, chunks, type RenderedAnswer, sse, type WireProtocol } from "./wire.ts";

const TEXT_PIECE = 16;
const INPUT_PIECE = 8;

/** Anthropic's usage: `input_tokens` leaves out what the cache read and wrote. */
function usage(inputTokens: number, outputTokens: number, read = 0, written = 0): Usage {
  return {
    input_tokens: inputTokens - read - written,
    output_tokens: outputTokens,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: "standard",
    speed: null,
  };
}

function content(answer: Answer): ContentBlock[] {
  if (answer.blocks !== undefined) return answer.blocks as ContentBlock[];
  const blocks: ContentBlock[] = [];
  if (answer.thinking !== null) {
    blocks.push({ type: "thinking", thinking: answer.thinking, signature: sign(answer.thinking) });
  }
  // Anthropic has no refusal field: a refusal is the answer's text, with stop reason `refusal`.
  const text = answer.refusal ?? answer.text ?? "";
  // As Anthropic sends text without citations: no `citations` field.
  if (text !== "") blocks.push({ type: "text", text } as ContentBlock);
  for (const call of answer.toolCalls) {
    blocks.push({
      type: "tool_use",
      // Anthropic's ids are letters, digits, `_` and `-`.
      id: call.id.replace(/[^A-Za-z0-9_-]/g, "_"),
      name: call.name,
      // A custom tool's free-form input rides as `{ input }`, as Anthropic has only JSON input.
      input: call.custom
        ? { input: call.arguments }
        : (JSON.parse(call.arguments === "" ? "{}" : call.arguments) as unknown),
      caller: { type: "direct" },
    });
  }
  return blocks;
}

function stopReason(answer: Answer): StopReason {
  if (answer.toolCalls.length > 0) return "tool_use";
  if (answer.refusal !== null || answer.finishReason === "content_filter") return "refusal";
  return answer.finishReason === "length" ? "max_tokens" : "end_turn";
}

function message(answer: Answer, context: AnswerContext): Message {
  return {
    id: answer.id ?? `msg_${context.serial}`,
    type: "message",
    role: "assistant",
    model: context.model,
    content: content(answer),
    stop_reason: stopReason(answer),
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: (answer.diagnostics ?? null) as Message["diagnostics"],
    usage: usage(
      answer.usage?.prompt_tokens ?? 0,
      answer.usage?.completion_tokens ?? 0,
      answer.usage?.cache_read_tokens,
      answer.usage?.cache_write_tokens,
    ),
  };
}

/** The events of one content block, between its start and its stop. */
function blockEvents(
  block: ContentBlock,
  index: number,
  push: (event: RawMessageStreamEvent) => void,
): void {
  if (block.type === "thinking") {
    push({
      type: "content_block_start",
      index,
      content_block: { ...block, thinking: "", signature: "" },
    });
    for (const part of chunks(block.thinking, TEXT_PIECE)) {
      push({
        type: "content_block_delta",
        index,
        delta: { type: "thinking_delta", thinking: part },
      });
    }
    push({
      type: "content_block_delta",
      index,
      delta: { type: "signature_delta", signature: block.signature },
    });
  } else if (block.type === "text") {
    push({ type: "content_block_start", index, content_block: { ...block, text: "" } });
    for (const part of chunks(block.text, TEXT_PIECE)) {
      push({ type: "content_block_delta", index, delta: { type: "text_delta", text: part } });
    }
  } else if ("input" in block && block.input !== undefined) {
    push({ type: "content_block_start", index, content_block: { ...block, input: {} } });
    for (const part of chunks(JSON.stringify(block.input), INPUT_PIECE)) {
      push({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: part },
      });
    }
  } else {
    // A block without input (redacted thinking, a server tool's result) starts whole.
    push({ type: "content_block_start", index, content_block: block });
  }
}

function render(answer: Answer, context: AnswerContext): RenderedAnswer {
  const whole = message(answer, context);
  const events: string[] = [];
  const push = (event: RawMessageStreamEvent) => events.push(sse(event.type, event));
  push({
    type: "message_start",
    message: {
      ...whole,
      content: [],
      stop_reason: null,
      usage: {
        ...whole.usage,
        output_tokens: 1,
      },
    },
  });
  events.push(sse("ping", { type: "ping" }));
  whole.content.forEach((block, index) => {
    blockEvents(block, index, push);
    push({ type: "content_block_stop", index });
  });
  const beforeFinish = events.length;
  events.push(
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: whole.stop_reason, stop_sequence: null },
      usage: { output_tokens: whole.usage.output_tokens },
    }),
  );
  push({ type: "message_stop" });
  return { json: whole, events, beforeFinish };
}

/** Anthropic's error type for a status, when the error names none. */
function errorType(status: number): string {
  const types: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
  };
  return types[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
}

export const anthropicMessages: WireProtocol = {
  name: "anthropic",
  path: "/v1/messages",
  render,
  errorBody: (error: Violation) => ({
    type: "error",
    error: { type: error.errorType ?? errorType(error.status), message: error.message },
    request_id: "req_test",
  }),
  overflow: (tokens, limit) => ({
    status: 400,
    message: `prompt is too long: ${tokens} tokens > ${limit} maximum`,
  }),
  unauthorized: () => ({ status: 401, message: "invalid x-api-key" }),
  // Claude Code sends `x-api-key`; newer Anthropic SDKs send `Authorization: Bearer`.
  authenticated: (headers, key) =>
    headers["x-api-key"] === key || headers.authorization === `Bearer ${key}`,
  prompt: (body) => ({ system: body.system, tools: body.tools, messages: body.messages }),
  items: (body) => objects(body.messages),
  violation: (body, headers) => anthropicViolation(body, headers["anthropic-beta"] ?? ""),
};
