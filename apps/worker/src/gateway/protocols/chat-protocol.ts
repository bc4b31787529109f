/**
 * @module gateway/protocols/chat-protocol
 * OpenAI Chat Completions through the gateway: the history is `messages`, the
 * answer is `choices[0].message` (function and custom tool calls), a stream is
 * `chat.completion.chunk` events ending with `[DONE]`, usage is `usage.prompt_tokens` (in the last chunk when
 * the client asked for `stream_options.include_usage`). The stream's answer is
 * assembled here because the SDK's own accumulator only reads the SDK's
 * streams, and the gateway passes the upstream's bytes through untouched.
 */

import { type ProviderUsage, recallChatCompletionsTool } from "@condense/core";
import type { ChatCompletion, ChatCompletionChunk } from "openai/resources/chat/completions";
import {
  type AnswerToolCall,
  count,
  eventData,
  type GatewayProtocol,
  isRecord,
  openAIErrorBody,
  openAIUsage,
  type ProtocolAnswer,
  protocolAnswer,
  type StreamAccumulator,
  type ToolRoundHooks,
  toolsField,
} from "./protocol";

interface CallParts {
  id: string;
  /** A function call, or a custom tool call (free-form `input`, which `arguments` then holds). */
  type: "function" | "custom";
  name: string;
  arguments: string;
}

function chatAccumulator(): StreamAccumulator {
  let content: string | null = null;
  let refusal: string | null = null;
  const calls: CallParts[] = [];
  let finished = false;
  let failed = false;
  let usage: ProviderUsage | undefined;
  let outputTokens: number | undefined;
  return {
    event(event) {
      if (event.data === "[DONE]") return;
      const data = eventData(event);
      if (data === undefined) return;
      if (data.error !== undefined) failed = true;
      const chunk = data as Partial<ChatCompletionChunk>;
      usage = openAIUsage(chunk.usage?.prompt_tokens, chunk.usage?.prompt_tokens_details) ?? usage;
      outputTokens = count(chunk.usage?.completion_tokens) ?? outputTokens;
      const choice = (chunk.choices ?? []).find((candidate) => (candidate.index ?? 0) === 0);
      if (choice === undefined) return;
      const delta = isRecord(choice.delta) ? choice.delta : {};
      if (typeof delta.content === "string") content = (content ?? "") + delta.content;
      if (typeof delta.refusal === "string") refusal = (refusal ?? "") + delta.refusal;
      for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        const index = count(call.index) ?? 0;
        const parts = calls[index] ?? { id: "", type: "function", name: "", arguments: "" };
        calls[index] = parts;
        if (typeof call.id === "string") parts.id = call.id;
        if (call.type === "custom" || call.custom !== undefined) parts.type = "custom";
        if (typeof call.function?.name === "string") parts.name += call.function.name;
        if (typeof call.function?.arguments === "string")
          parts.arguments += call.function.arguments;
        if (typeof call.custom?.name === "string") parts.name += call.custom.name;
        if (typeof call.custom?.input === "string") parts.arguments += call.custom.input;
      }
      if (typeof choice.finish_reason === "string") finished = true;
    },
    result() {
      if (!finished || failed) return undefined;
      const toolCalls = calls
        .filter((call) => call !== undefined)
        .map((call) =>
          call.type === "custom"
            ? { id: call.id, type: "custom", custom: { name: call.name, input: call.arguments } }
            : {
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: call.arguments },
              },
        );
      const message = {
        role: "assistant",
        content,
        ...(refusal !== null ? { refusal } : {}),
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      };
      return protocolAnswer([message], usage, outputTokens);
    },
  };
}

/** The answer's assistant message (the first choice's). */
function answerMessage(answer: ProtocolAnswer): Record<string, unknown> | undefined {
  const message = answer.messages[0];
  return isRecord(message) ? message : undefined;
}

function toolCallsOf(message: Record<string, unknown> | undefined): AnswerToolCall[] {
  const calls = Array.isArray(message?.tool_calls) ? (message.tool_calls as unknown[]) : [];
  return calls.flatMap((call) =>
    isRecord(call) && typeof call.id === "string" && isRecord(call.function)
      ? [
          {
            id: call.id,
            name: String(call.function.name ?? ""),
            arguments: call.function.arguments,
          },
        ]
      : [],
  );
}

const chatTools: ToolRoundHooks = {
  ...toolsField(recallChatCompletionsTool),
  calls: (answer) => toolCallsOf(answerMessage(answer)),
  withResults(body, answer, results) {
    const message = answerMessage(answer);
    // Only the fields an assistant message param takes (a response's `annotations` is not one).
    const assistant = {
      role: "assistant",
      content: typeof message?.content === "string" ? message.content : null,
      tool_calls: toolCallsOf(message).map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      })),
    };
    const answers = results.map((result) => ({
      role: "tool",
      tool_call_id: result.id,
      content: result.text,
    }));
    const messages = Array.isArray(body.messages) ? body.messages : [];
    return { ...body, messages: [...messages, assistant, ...answers] };
  },
  withoutToolCalls: (body) => ({ ...body, tool_choice: "none" }),
};

export const chatProtocol: GatewayProtocol = {
  name: "chat",
  format: "openai",
  history(body) {
    return Array.isArray(body.messages) ? { messages: body.messages } : undefined;
  },
  withContext(body, context) {
    return { ...body, messages: context.messages };
  },
  // `functions` is the older way to declare tools, billed as `tools` are.
  overheadFields: ["tools", "functions"],
  maxOutputTokens(body) {
    return count(body.max_completion_tokens) ?? count(body.max_tokens);
  },
  answer(body): ProtocolAnswer | undefined {
    if (!isRecord(body)) return undefined;
    const completion = body as Partial<ChatCompletion>;
    const message = (completion.choices ?? []).find((choice) => (choice.index ?? 0) === 0)?.message;
    if (!isRecord(message)) return undefined;
    const usage = completion.usage;
    return protocolAnswer(
      [message],
      openAIUsage(usage?.prompt_tokens, usage?.prompt_tokens_details),
      count(usage?.completion_tokens),
    );
  },
  accumulator: chatAccumulator,
  tools: chatTools,
  errorBody: openAIErrorBody,
  streamError(code, message) {
    // OpenAI's SDKs raise an `error` object met in a stream's data as an API error.
    return `data: ${JSON.stringify({ error: { message, type: "server_error", param: null, code } })}\n\n`;
  },
};
