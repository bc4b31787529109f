/**
 * @module upstream/chat-completions
 * The scripted upstream's OpenAI Chat Completions protocol (`POST
 * /chat/completions`): the request read for the model, the rules
 * (`upstream/chat-rules`), and the answer as OpenAI streams it — a first chunk
 * with the role, content deltas, a tool call announced with its id and name
 * and then its arguments in pieces, the chunk with the finish reason, a usage
 * chunk when `stream_options.include_usage` asks, and `data: [DONE]`.
 */

import {
  chatViolation,
  contentText,
  isObject,
  type JsonObject,
  objects,
  text,
} from "@condense/test-servers";
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";
import type { ModelAnswer, ToolResult } from "../model/model-turn.ts";
import { type AnswerContext, chunks, type WireProtocol } from "./wire.ts";

function trailingResults(messages: JsonObject[]): ToolResult[] {
  const results: ToolResult[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== "tool") break;
    results.unshift({ callId: text(message.tool_call_id), text: contentText(message.content) });
  }
  return results;
}

function usage(inputTokens: number) {
  return { prompt_tokens: inputTokens, completion_tokens: 24, total_tokens: inputTokens + 24 };
}

function completion(answer: ModelAnswer, context: AnswerContext): ChatCompletion {
  const call = answer.call;
  return {
    id: `chatcmpl-e2e-${context.serial}`,
    object: "chat.completion",
    created: 1_795_000_000,
    model: context.model,
    choices: [
      {
        index: 0,
        logprobs: null,
        finish_reason: call !== undefined ? "tool_calls" : "stop",
        message: {
          role: "assistant",
          content: answer.text ?? null,
          refusal: null,
          ...(call !== undefined
            ? {
                tool_calls: [
                  {
                    id: `call_${call.id}`,
                    type: "function" as const,
                    function: {
                      name: call.name,
                      arguments: call.kind === "function" ? JSON.stringify(call.input) : call.input,
                    },
                  },
                ],
              }
            : {}),
        },
      },
    ],
    usage: usage(context.inputTokens),
  };
}

export const chatCompletions: WireProtocol = {
  name: "chat",
  path: "/chat/completions",
  read(body) {
    const messages = objects(body.messages);
    const last = messages.at(-1);
    return {
      tools: objects(body.tools).map((tool) =>
        isObject(tool.function) ? text(tool.function.name) : text(tool.name),
      ),
      toolResults: trailingResults(messages),
      userText: last?.role === "user" ? contentText(last.content) : "",
      systemText: messages
        .filter((message) => message.role === "system" || message.role === "developer")
        .map((message) => contentText(message.content))
        .join("\n"),
      reasoning: false,
    };
  },
  violation: (body) => chatViolation(body),
  prompt: (body) => ({ tools: body.tools, messages: body.messages }),
  items: (body) => objects(body.messages),
  authenticated: (headers, key) => headers.authorization === `Bearer ${key}`,
  json: completion,
  events(answer, context) {
    const base = {
      id: `chatcmpl-e2e-${context.serial}`,
      object: "chat.completion.chunk" as const,
      created: 1_795_000_000,
      model: context.model,
    };
    const out: string[] = [];
    const push = (chunk: ChatCompletionChunk) => out.push(`data: ${JSON.stringify(chunk)}\n\n`);
    const delta = (
      value: ChatCompletionChunk.Choice.Delta,
      finish: ChatCompletionChunk.Choice["finish_reason"] = null,
    ) =>
      push({
        ...base,
        choices: [{ index: 0, delta: value, finish_reason: finish, logprobs: null }],
      });
    delta({ role: "assistant", content: "", refusal: null });
    for (const part of chunks(answer.text ?? "", 24)) delta({ content: part });
    const call = answer.call;
    if (call !== undefined) {
      const args = call.kind === "function" ? JSON.stringify(call.input) : call.input;
      delta({
        tool_calls: [
          {
            index: 0,
            id: `call_${call.id}`,
            type: "function",
            function: { name: call.name, arguments: "" },
          },
        ],
      });
      for (const part of chunks(args, 40))
        delta({ tool_calls: [{ index: 0, function: { arguments: part } }] });
    }
    delta({}, call !== undefined ? "tool_calls" : "stop");
    const options = context.request.stream_options;
    if (isObject(options) && options.include_usage === true) {
      out.push(
        `data: ${JSON.stringify({ ...base, choices: [], usage: usage(context.inputTokens) })}\n\n`,
      );
    }
    out.push("data: [DONE]\n\n");
    return out;
  },
  errorBody: (violation) => ({
    error: {
      message: violation.message,
      type: violation.type ?? "invalid_request_error",
      param: violation.param ?? null,
      code: violation.code ?? null,
    },
  }),
  overflow: (tokens, limit) => ({
    status: 400,
    message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
    param: "messages",
    code: "context_length_exceeded",
  }),
  unauthorized: () => ({
    status: 401,
    message:
      "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
    code: "invalid_api_key",
  }),
};
