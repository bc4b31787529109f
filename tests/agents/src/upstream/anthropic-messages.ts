/**
 * @module upstream/anthropic-messages
 * The scripted upstream's Anthropic Messages protocol (`POST /v1/messages`):
 * the request read for the model, the rules (`upstream/anthropic-rules`), and
 * the answer as Anthropic sends it, a message or its event stream
 * (`message_start`, a `ping`, content blocks with their deltas — a signed
 * thinking block first when thinking is on, text, `tool_use` with its input as
 * JSON deltas — `message_delta` with the stop reason and usage,
 * `message_stop`).
 */

import type {
  Message,
  RawMessageStreamEvent,
  Usage,
} from "@anthropic-ai/sdk/resources/messages/messages";
import {
  anthropicViolation,
  contentText,
  isObject,
  type JsonObject,
  objects,
  sign,
  text,
} from "@condense/test-servers";
import type { ModelAnswer, ToolResult } from "../model/model-turn.ts";
import { type AnswerContext, chunks, sse, type WireProtocol } from "./wire.ts";

function blocks(message: JsonObject): JsonObject[] {
  return typeof message.content === "string"
    ? [{ type: "text", text: message.content }]
    : objects(message.content);
}

function toolResults(message: JsonObject | undefined): ToolResult[] {
  if (message?.role !== "user") return [];
  return blocks(message)
    .filter((block) => block.type === "tool_result")
    .map((block) => ({ callId: text(block.tool_use_id), text: contentText(block.content) }));
}

function usage(inputTokens: number, outputTokens: number): Usage {
  return {
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: null,
    inference_geo: null,
    output_tokens_details: null,
    server_tool_use: null,
    service_tier: "standard",
    speed: null,
  };
}

function content(answer: ModelAnswer): Message["content"] {
  const out: Message["content"] = [];
  if (answer.thinking !== undefined) {
    out.push({ type: "thinking", thinking: answer.thinking, signature: sign(answer.thinking) });
  }
  if (answer.text !== undefined) out.push({ type: "text", text: answer.text, citations: null });
  if (answer.call !== undefined) {
    const input =
      answer.call.kind === "function" ? answer.call.input : { input: answer.call.input };
    out.push({
      type: "tool_use",
      id: `toolu_${answer.call.id}`,
      name: answer.call.name,
      input,
      caller: { type: "direct" },
    });
  }
  return out;
}

function message(answer: ModelAnswer, context: AnswerContext): Message {
  return {
    id: `msg_e2e_${context.serial}`,
    type: "message",
    role: "assistant",
    model: context.model,
    content: content(answer),
    stop_reason: answer.call !== undefined ? "tool_use" : "end_turn",
    stop_sequence: null,
    stop_details: null,
    container: null,
    diagnostics: null,
    usage: usage(context.inputTokens, 24),
  };
}

export const anthropicMessages: WireProtocol = {
  name: "anthropic",
  path: "/v1/messages",
  read(body) {
    const messages = objects(body.messages);
    const last = messages.at(-1);
    const system = Array.isArray(body.system) ? contentText(body.system) : text(body.system);
    return {
      tools: objects(body.tools).map((tool) => text(tool.name)),
      toolResults: toolResults(last),
      userText:
        last?.role === "user"
          ? blocks(last)
              .filter((block) => block.type === "text")
              .map((block) => text(block.text))
              .join("\n")
          : "",
      systemText: system,
      reasoning:
        isObject(body.thinking) &&
        (body.thinking.type === "enabled" || body.thinking.type === "adaptive"),
    };
  },
  violation: (body, headers) => anthropicViolation(body, headers["anthropic-beta"] ?? ""),
  prompt: (body) => ({ system: body.system, tools: body.tools, messages: body.messages }),
  items: (body) => objects(body.messages),
  // Claude Code sends `x-api-key`; newer Anthropic SDKs send `Authorization: Bearer`.
  authenticated: (headers, key) =>
    headers["x-api-key"] === key || headers.authorization === `Bearer ${key}`,
  json: message,
  events(answer, context) {
    const whole = message(answer, context);
    const events: RawMessageStreamEvent[] = [
      {
        type: "message_start",
        message: { ...whole, content: [], stop_reason: null, usage: usage(context.inputTokens, 1) },
      },
    ];
    const out = [sse("message_start", events[0] as object), sse("ping", { type: "ping" })];
    const push = (event: RawMessageStreamEvent) => out.push(sse(event.type, event));
    whole.content.forEach((block, index) => {
      if (block.type === "thinking") {
        push({
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        });
        for (const part of chunks(block.thinking, 24)) {
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
        push({
          type: "content_block_start",
          index,
          content_block: { type: "text", text: "", citations: null },
        });
        for (const part of chunks(block.text, 24)) {
          push({ type: "content_block_delta", index, delta: { type: "text_delta", text: part } });
        }
      } else if (block.type === "tool_use") {
        push({ type: "content_block_start", index, content_block: { ...block, input: {} } });
        for (const part of chunks(JSON.stringify(block.input), 40)) {
          push({
            type: "content_block_delta",
            index,
            delta: { type: "input_json_delta", partial_json: part },
          });
        }
      }
      push({ type: "content_block_stop", index });
    });
    out.push(
      sse("message_delta", {
        type: "message_delta",
        delta: { stop_reason: whole.stop_reason, stop_sequence: null },
        usage: { input_tokens: context.inputTokens, output_tokens: 24 },
      }),
    );
    push({ type: "message_stop" });
    return out;
  },
  errorBody: (violation) => ({
    type: "error",
    error: { type: violation.type ?? "invalid_request_error", message: violation.message },
    request_id: "req_e2e",
  }),
  overflow: (tokens, limit) => ({
    status: 400,
    type: "invalid_request_error",
    message: `prompt is too long: ${tokens} tokens > ${limit} maximum`,
  }),
  unauthorized: () => ({ status: 401, type: "authentication_error", message: "invalid x-api-key" }),
};
