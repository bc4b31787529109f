/**
 * @module test/ai-sdk-model
 * A model for the `condenseMiddleware` tests: the AI SDK's own
 * `MockLanguageModelV4`, scripted like test/scenario-server.ts. It counts each
 * prompt with its own tokenizer (characters / `charsPerToken`), refuses one over
 * `limit` with OpenAI's overflow error as an `APICallError` (what the AI SDK's
 * providers throw), and answers with text, or a `read_file` tool call every
 * `toolEvery`-th answer; streamed answers come in small text deltas. Every
 * prompt it received is in `log`.
 */

import {
  APICallError,
  type LanguageModelV4CallOptions,
  type LanguageModelV4Content,
  type LanguageModelV4Prompt,
  type LanguageModelV4StreamPart,
  type LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";

export interface MockScenario {
  /** The window, or the window stated for a prompt of so many tokens: a provider whose count drifts. */
  limit: number | ((tokens: number) => number);
  charsPerToken?: number;
  toolEvery?: number;
  /** Report `usage.inputTokens` (default true). */
  reportUsage?: boolean;
  /** The text of each answer; by default it quotes the prompt's last user message. */
  answer?: (n: number, prompt: LanguageModelV4Prompt) => string;
}

export interface MockCall {
  prompt: LanguageModelV4Prompt;
  tokens: number;
  overLimit: boolean;
  stream: boolean;
}

function texts(value: unknown, out: string[]): void {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) texts(item, out);
  else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === "type" || key === "toolCallId" || key === "providerOptions") continue;
      texts(item, out);
    }
  }
}

export function promptTokens(prompt: LanguageModelV4Prompt, charsPerToken: number): number {
  const parts: string[] = [];
  texts(prompt, parts);
  return (
    Math.ceil(parts.reduce((sum, text) => sum + text.length, 0) / charsPerToken) + 4 * prompt.length
  );
}

/** The text of the last user message of a prompt. */
export function lastUserText(prompt: LanguageModelV4Prompt): string {
  for (let index = prompt.length - 1; index >= 0; index--) {
    const message = prompt[index];
    if (message?.role === "user")
      return message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  }
  return "";
}

export function mockModel(scenario: MockScenario): { model: MockLanguageModelV4; log: MockCall[] } {
  const log: MockCall[] = [];
  let answers = 0;

  function respond(
    options: LanguageModelV4CallOptions,
    stream: boolean,
  ): { content: LanguageModelV4Content[]; usage: LanguageModelV4Usage } {
    const tokens = promptTokens(options.prompt, scenario.charsPerToken ?? 3);
    const limit = typeof scenario.limit === "number" ? scenario.limit : scenario.limit(tokens);
    const overLimit = tokens > limit;
    log.push({ prompt: options.prompt, tokens, overLimit, stream });
    if (overLimit) {
      const message = `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`;
      throw new APICallError({
        message,
        url: "https://model.test/v1/chat/completions",
        requestBodyValues: {},
        statusCode: 400,
        responseBody: JSON.stringify({
          error: { message, type: "invalid_request_error", code: "context_length_exceeded" },
        }),
        isRetryable: false,
      });
    }
    answers++;
    const n = answers;
    const tool = (scenario.toolEvery ?? 0) > 0 && n % (scenario.toolEvery ?? 1) === 0;
    const text =
      scenario.answer?.(n, options.prompt) ??
      `Answer ${n} to "${lastUserText(options.prompt).slice(0, 60)}": the build passes.`;
    const content: LanguageModelV4Content[] = tool
      ? [
          {
            type: "tool-call",
            toolCallId: `call_${n}`,
            toolName: "read_file",
            input: JSON.stringify({ path: `src/module_${n}.ts` }),
          },
        ]
      : [{ type: "text", text }];
    const usage: LanguageModelV4Usage = {
      inputTokens: {
        total: scenario.reportUsage === false ? undefined : tokens,
        noCache: undefined,
        cacheRead: undefined,
        cacheWrite: undefined,
      },
      outputTokens: { total: 20, text: 20, reasoning: undefined },
    };
    return { content, usage };
  }

  const model = new MockLanguageModelV4({
    modelId: "mock-model",
    doGenerate: async (options) => {
      const { content, usage } = respond(options, false);
      const toolCall = content.some((part) => part.type === "tool-call");
      return {
        content,
        usage,
        finishReason: { unified: toolCall ? "tool-calls" : "stop", raw: undefined },
        warnings: [],
      };
    },
    doStream: async (options) => {
      const { content, usage } = respond(options, true);
      const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
      let toolCall = false;
      for (const [index, part] of content.entries()) {
        if (part.type === "text") {
          const id = `t${index}`;
          parts.push({ type: "text-start", id });
          for (let at = 0; at < part.text.length; at += 16)
            parts.push({ type: "text-delta", id, delta: part.text.slice(at, at + 16) });
          parts.push({ type: "text-end", id });
        } else if (part.type === "tool-call") {
          toolCall = true;
          parts.push(part);
        }
      }
      parts.push({
        type: "finish",
        usage,
        finishReason: { unified: toolCall ? "tool-calls" : "stop", raw: undefined },
      });
      return { stream: convertArrayToReadableStream(parts) };
    },
  });
  return { model, log };
}
