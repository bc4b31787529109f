/**
 * @module provider-overflows
 * Context-overflow errors as real providers send them (OpenAI, Anthropic,
 * vLLM, llama.cpp, Gemini, Mistral), each in its own body shape and
 * wording, for servers that play one provider or rotate through them; and
 * Anthropic's other overflow, the input and `max_tokens` together over the
 * window.
 */

import type { JsonObject } from "./json.ts";
import type { Violation } from "./rules/violation.ts";

export const OVERFLOW_PROVIDERS = [
  "openai",
  "anthropic",
  "vllm",
  "llama.cpp",
  "gemini",
  "mistral",
] as const;

export type OverflowProvider = (typeof OVERFLOW_PROVIDERS)[number];

/** The body `provider` answers (status 400) a prompt of `tokens` over its `limit` with. */
export function overflowBody(
  provider: OverflowProvider,
  tokens: number,
  limit: number,
): JsonObject {
  switch (provider) {
    case "openai":
      return {
        error: {
          message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
          type: "invalid_request_error",
          param: "messages",
          code: "context_length_exceeded",
        },
      };
    case "anthropic":
      return {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: `prompt is too long: ${tokens} tokens > ${limit} maximum`,
        },
      };
    case "vllm":
      return {
        object: "error",
        message: `This model's maximum context length is ${limit} tokens. However, you requested ${tokens} tokens (${tokens} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`,
        type: "BadRequestError",
        param: null,
        code: 400,
      };
    case "llama.cpp":
      return {
        error: {
          code: 400,
          message: "the request exceeds the available context size, try increasing it",
          type: "exceed_context_size_error",
          n_prompt_tokens: tokens,
          n_ctx: limit,
        },
      };
    case "gemini":
      return {
        error: {
          code: 400,
          message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${limit}).`,
          status: "INVALID_ARGUMENT",
        },
      };
    case "mistral":
      return {
        object: "error",
        message: `Prompt contains ${tokens} tokens and 0 draft tokens, too large for model with ${limit} maximum context length`,
        type: "invalid_request_message_error",
        param: null,
        code: "3051",
      };
  }
}

/** Anthropic's refusal of a prompt whose `tokens` and `max_tokens` together pass the window. */
export function anthropicSumOverflow(tokens: number, maxTokens: number, limit: number): Violation {
  return {
    status: 400,
    message: `input length and \`max_tokens\` exceed context limit: ${tokens} + ${maxTokens} > ${limit}, decrease input length or \`max_tokens\` and try again`,
  };
}
