/**
 * @module gateway/protocols/protocol
 * What the gateway needs to know of a provider protocol (OpenAI Chat
 * Completions, OpenAI Responses, Anthropic Messages): where a request keeps
 * its history and how to put the compacted context in its place, the answer
 * of a complete response and of a stream, and the shape of the errors the
 * gateway itself makes, so that the SDKs raise their own error classes.
 */

import type { MessageFormat, ProviderUsage } from "@condense/core";
import { isRecord } from "@condense/core";
import type { EventSourceMessage } from "eventsource-parser";

export type ProtocolName = "chat" | "responses" | "anthropic" | "gemini";

/** A request body as the client sent it (already checked to be a JSON object with a model). */
export type RequestBody = Record<string, unknown>;

/** The history a request carries, in the protocol's message format. */
export interface RequestHistory {
  messages: unknown[];
  /** Anthropic's top-level `system`. */
  system?: unknown;
}

/**
 * The model's answer, in the protocol's message format, and the provider's count of the prompt:
 * every input token, and those it read from and wrote to its prompt cache.
 */
export interface ProtocolAnswer {
  messages: unknown[];
  usage?: ProviderUsage;
  /** The answer's tokens, as the provider reported them (the spending guard counts them with the prompt's). */
  outputTokens?: number;
  /** The provider's id of the answer (Anthropic's `msg_…`: the next request's `previous_message_id`). */
  id?: string;
}

/** Reads a stream's events as they pass and makes the answer of a stream that completed. */
export interface StreamAccumulator {
  event(event: EventSourceMessage): void;
  /** The answer, once the stream said it is complete (undefined for a stream cut short or failed). */
  result(): ProtocolAnswer | undefined;
}

/** A tool call in a complete answer: its id, the tool's name and its arguments as the protocol has them. */
export interface AnswerToolCall {
  id: string;
  name: string;
  /** A JSON string (OpenAI) or an object (Anthropic's `input`). */
  arguments: unknown;
}

/** The text that answers one tool call. */
export interface ToolResult {
  id: string;
  text: string;
}

/**
 * What the gateway needs to answer a tool's calls itself (`gateway/recall/recall-rounds`): the tool
 * declared in the request, its calls read from a complete answer, and the request again with the
 * answer and the results appended to its history, in the protocol's own shapes.
 */
export interface ToolRoundHooks {
  /** Whether the request declares a tool of this name itself. */
  declares(body: RequestBody, name: string): boolean;
  /** The request with the recall tool added to its `tools`. */
  withRecallTool(body: RequestBody): RequestBody;
  /** Every tool call of a complete answer (of a response body, or of a stream), in order. */
  calls(answer: ProtocolAnswer): AnswerToolCall[];
  /** The request with the answer's assistant turn, then a result for each of its calls, appended. */
  withResults(
    body: RequestBody,
    answer: ProtocolAnswer,
    results: readonly ToolResult[],
  ): RequestBody;
  /** The request asking for an answer without tool calls (the tools stay declared). */
  withoutToolCalls(body: RequestBody): RequestBody;
}

/** An error the gateway itself answers (an `ApiError`, as `http/route` hands it to `errorBody`). */
export interface GatewayError {
  status: number;
  code: string;
  message: string;
}

export interface GatewayProtocol {
  name: ProtocolName;
  /** The message format of the engine this protocol's history converts from and to. */
  format: MessageFormat;
  /**
   * The request's history, or undefined when it keeps its history elsewhere (a Responses request
   * chaining `previous_response_id` or a `conversation`): such requests are forwarded unchanged.
   */
  history(body: RequestBody): RequestHistory | undefined;
  /** The request with `context` in place of its history, every other field untouched. */
  withContext(body: RequestBody, context: RequestHistory): RequestBody;
  /**
   * The request's top-level fields besides its history that the provider counts as input tokens
   * (tool definitions, Responses' `instructions`): the request's fixed overhead
   * (`gateway/plans/request-overhead`).
   */
  overheadFields: readonly string[];
  /** The answer budget the request asks for, if it names one. */
  maxOutputTokens(body: RequestBody): number | undefined;
  /** The answer of a complete (non-streamed) response body. */
  answer(body: unknown): ProtocolAnswer | undefined;
  accumulator(): StreamAccumulator;
  /** How the gateway answers the recall tool's calls itself. */
  tools: ToolRoundHooks;
  /** An error the gateway itself answers, in the protocol's shape (the routes' `ErrorShape`). */
  errorBody(error: GatewayError): unknown;
  /** The same error as a stream event, for a stream the gateway has to end (an upstream gone quiet). */
  streamError(code: string, message: string): string;
}

/** The protocols' one test for a JSON object is the engine's (so they read input as it does). */
export { isRecord };

/** A whole non-negative number, or undefined. */
export function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** JSON of an event's data, or undefined when it is not a JSON object (`[DONE]`). */
export function eventData(event: EventSourceMessage): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(event.data);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** An answer of `messages`, with the provider's counts of the prompt and the answer when it gave them. */
export function protocolAnswer(
  messages: unknown[],
  usage: ProviderUsage | undefined,
  outputTokens?: number,
): ProtocolAnswer {
  return {
    messages,
    ...(usage !== undefined ? { usage } : {}),
    ...(outputTokens !== undefined ? { outputTokens } : {}),
  };
}

/**
 * The usage of an OpenAI answer: `total` every prompt token (`prompt_tokens`, `input_tokens`), of
 * which `details.cached_tokens` were read from the cache and `details.cache_write_tokens` written
 * to it (reported, and priced at 1.25× input, from the GPT-5.6 family on; earlier models write
 * without a premium and report none).
 */
export function openAIUsage(total: unknown, details: unknown): ProviderUsage | undefined {
  const inputTokens = count(total);
  if (inputTokens === undefined) return undefined;
  const cached = isRecord(details) ? (count(details.cached_tokens) ?? 0) : 0;
  const written = isRecord(details) ? (count(details.cache_write_tokens) ?? 0) : 0;
  return { inputTokens, cacheReadTokens: cached, cacheWriteTokens: written };
}

/** Whether `tools` (a request's) has an entry named `name`, at the top or under `function`/`custom`. */
function declaresTool(tools: unknown, name: string): boolean {
  if (!Array.isArray(tools)) return false;
  return tools.some(
    (tool) =>
      isRecord(tool) &&
      (tool.name === name ||
        (isRecord(tool.function) && tool.function.name === name) ||
        (isRecord(tool.custom) && tool.custom.name === name)),
  );
}

/**
 * The tool hooks every protocol has alike, since all three declare tools in `tools`: whether the
 * request declares a tool, and the request with the recall tool (core's, in the protocol's shape).
 */
export function toolsField(
  recallTool: () => unknown,
): Pick<ToolRoundHooks, "declares" | "withRecallTool"> {
  return {
    declares: (body, name) => declaresTool(body.tools, name),
    withRecallTool: (body) => ({
      ...body,
      tools: [...(Array.isArray(body.tools) ? body.tools : []), recallTool()],
    }),
  };
}

/** OpenAI's error `type` for a status, as its API names them. */
function openAIErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** An error in OpenAI's shape (Chat Completions and Responses alike), which its SDKs raise. */
export function openAIErrorBody({ status, code, message }: GatewayError): unknown {
  return { error: { message, type: openAIErrorType(status), param: null, code } };
}
