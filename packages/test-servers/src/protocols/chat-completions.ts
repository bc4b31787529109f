/**
 * @module protocols/chat-completions
 * OpenAI's Chat Completions (`POST …/chat/completions`) for the test servers:
 * the answer as OpenAI sends it — whole, or streamed as a first chunk with
 * the role, content deltas, each tool call announced with its id and name and
 * then its arguments in pieces (a custom tool's input likewise), a refusal
 * delta, the chunk with the finish reason, a usage chunk when
 * `stream_options.include_usage` asks, and `data: [DONE]` — OpenAI's errors,
 * and its rules (`rules/chat-rules`).
 */

import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";
import { isObject, type JsonObject, objects } from "../json.ts";
import type { Answer, ToolCallReply } from "../reply.ts";
import { chatViolation } from "../rules/chat-rules.ts";
import { breakpointModel, openaiCacheViolation } from "../rules/openai-cache-rules.ts";
import {
  type AnswerContext,
  CREATED,
  chunks,
  openaiErrorBody,
  openaiUnauthorized,
  type RenderedAnswer,
  type WireProtocol,
} from "./wire.ts";

/** Text and arguments stream in small pieces, as OpenAI sends them. */
const TEXT_PIECE = 16;
const ARGUMENT_PIECE = 8;

function toolCall(call: ToolCallReply): ChatCompletionMessageToolCall {
  return call.custom === true
    ? { id: call.id, type: "custom", custom: { name: call.name, input: call.arguments } }
    : { id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } };
}

/** The usage; writes to the cache are reported (`cache_write_tokens`) from GPT-5.6 on, as OpenAI does. */
function usage(answer: Answer, model: string) {
  if (answer.usage === null) return undefined;
  const { prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens } = answer.usage;
  const written = breakpointModel(model) ? cache_write_tokens : undefined;
  return {
    prompt_tokens,
    completion_tokens,
    total_tokens: prompt_tokens + completion_tokens,
    ...(cache_read_tokens !== undefined || written !== undefined
      ? {
          prompt_tokens_details: {
            cached_tokens: cache_read_tokens ?? 0,
            ...(written !== undefined ? { cache_write_tokens: written } : {}),
          },
        }
      : {}),
  };
}

function completion(answer: Answer, context: AnswerContext): ChatCompletion {
  const calls = answer.toolCalls.map(toolCall);
  const reported = usage(answer, context.model);
  return {
    id: `chatcmpl-${context.serial}`,
    object: "chat.completion",
    created: CREATED,
    model: context.model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: answer.text,
          refusal: answer.refusal,
          annotations: [],
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        },
        finish_reason: answer.finishReason,
        logprobs: null,
      },
    ],
    ...(reported === undefined ? {} : { usage: reported }),
  };
}

function render(answer: Answer, context: AnswerContext): RenderedAnswer {
  const whole = completion(answer, context);
  const base = {
    id: whole.id,
    object: "chat.completion.chunk" as const,
    created: CREATED,
    model: context.model,
  };
  const events: string[] = [];
  const push = (chunk: ChatCompletionChunk) => events.push(`data: ${JSON.stringify(chunk)}\n\n`);
  const delta = (
    value: ChatCompletionChunk.Choice.Delta,
    finish: ChatCompletionChunk.Choice["finish_reason"] = null,
  ) =>
    push({ ...base, choices: [{ index: 0, delta: value, finish_reason: finish, logprobs: null }] });
  // A call-only answer starts with `content: null`; any other with "", as OpenAI's streams do.
  delta({ role: "assistant", content: answer.toolCalls.length > 0 ? null : "", refusal: null });
  for (const piece of chunks(answer.text ?? "", TEXT_PIECE)) delta({ content: piece });
  answer.toolCalls.forEach((call, index) => {
    // Announced with its id and name, then the arguments (a custom tool's input) in pieces.
    const first = call.custom
      ? { index, id: call.id, type: "custom", custom: { name: call.name, input: "" } }
      : { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
    delta({ tool_calls: [first as ChatCompletionChunk.Choice.Delta.ToolCall] });
    for (const piece of chunks(call.arguments, ARGUMENT_PIECE)) {
      const next = call.custom
        ? { index, custom: { input: piece } }
        : { index, function: { arguments: piece } };
      delta({ tool_calls: [next as ChatCompletionChunk.Choice.Delta.ToolCall] });
    }
  });
  if (answer.refusal !== null) delta({ refusal: answer.refusal });
  const beforeFinish = events.length;
  delta({}, answer.finishReason);
  const options = context.request.stream_options;
  const reported = usage(answer, context.model);
  if (reported !== undefined && isObject(options) && options.include_usage === true) {
    push({ ...base, choices: [], usage: reported });
  }
  events.push("data: [DONE]\n\n");
  return { json: whole, events, beforeFinish };
}

export const chatCompletions: WireProtocol = {
  name: "chat",
  path: "/chat/completions",
  render,
  errorBody: openaiErrorBody,
  overflow: (tokens, limit) => ({
    status: 400,
    message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
    param: "messages",
    code: "context_length_exceeded",
  }),
  unauthorized: openaiUnauthorized,
  authenticated: (headers, key) => headers.authorization === `Bearer ${key}`,
  prompt: (body) => ({ tools: body.tools, messages: body.messages }),
  items: (body: JsonObject) => objects(body.messages),
  violation: (body) => chatViolation(body) ?? openaiCacheViolation(body, "chat"),
};
