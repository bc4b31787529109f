/**
 * @module protocols/wire
 * What each protocol module provides the test servers: the answer in its wire
 * format (a whole JSON answer, or server-sent events), its errors (the
 * provider's error shape, its own overflow and authentication errors), how it
 * carries the API key, what of a request it bills as prompt, the
 * conversation's items, and the first documented rule a request breaks.
 */

import type { JsonObject } from "../json.ts";
import type { Answer } from "../reply.ts";
import type { Violation } from "../rules/violation.ts";

export type ProtocolName = "chat" | "responses" | "anthropic" | "gemini";

export interface AnswerContext {
  model: string;
  /** A number unique to this answer (for ids). */
  serial: number;
  /** The request (for what it asks of the answer's form, e.g. Chat's `stream_options`). */
  request: JsonObject;
}

export interface RenderedAnswer {
  json: unknown;
  /** The answer as server-sent events, each a whole record, the stream's end marker included. */
  events: string[];
  /** How many of `events` come before the finish: what a stream cut short sends. */
  beforeFinish: number;
}

export interface WireProtocol {
  name: ProtocolName;
  /** The path the protocol is served at: a request path that ends with it. */
  path: string;
  /** Whether a request's path (without its query) is this protocol's, where `path` cannot say (Gemini's). */
  matches?(pathname: string): boolean;
  /** Whether a request streams, where its path says so (Gemini's); else its body's `stream`. */
  streams?(path: string): boolean;
  render(answer: Answer, context: AnswerContext): RenderedAnswer;
  errorBody(error: Violation): unknown;
  /** The provider's own context-overflow error. */
  overflow(tokens: number, limit: number): Violation;
  unauthorized(): Violation;
  /** Whether `headers` carry `key` the way this protocol sends it. */
  authenticated(headers: Record<string, string>, key: string): boolean;
  /** The parts of the request the provider counts as prompt (system, tools, messages). */
  prompt(body: JsonObject): unknown;
  /** The conversation items, in order. */
  items(body: JsonObject): JsonObject[];
  /** The first documented rule the request breaks (`headers` for Anthropic's betas). */
  violation(body: JsonObject, headers: Record<string, string>): Violation | undefined;
}

/** A server-sent event as the OpenAI and Anthropic APIs write them (named, JSON data). */
export function sse(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Splits `text` into chunks of `size` characters (stream deltas); none for empty text. */
export function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}

/** Answers are dated alike, so two runs answer the same. */
export const CREATED = 1_700_000_000;

/** OpenAI's error type for a status, when the error names none. */
export function openaiErrorType(status: number): string {
  return status >= 500 ? "server_error" : "invalid_request_error";
}

/** OpenAI's error body (Chat Completions and Responses). */
export function openaiErrorBody(error: Violation): unknown {
  return {
    error: {
      message: error.message,
      type: error.errorType ?? openaiErrorType(error.status),
      param: error.param ?? null,
      code: error.code ?? null,
    },
  };
}

/** OpenAI's answer to a wrong key. */
export function openaiUnauthorized(): Violation {
  return {
    status: 401,
    message:
      "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
    code: "invalid_api_key",
  };
}
