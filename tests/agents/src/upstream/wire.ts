/**
 * @module upstream/wire
 * What each protocol module of the scripted upstream provides: reading a
 * request for the model, the protocol's rules, its prompt for counting, and
 * the answer and errors in its wire format (JSON, or server-sent events).
 */

import type { JsonObject, Violation } from "@condense/test-servers";
import type { ModelAnswer, ModelRequest } from "../model/model-turn.ts";

export type ProtocolName = "anthropic" | "responses" | "chat";

export interface AnswerContext {
  model: string;
  /** A number unique to this answer (for ids). */
  serial: number;
  inputTokens: number;
  /** The request (for what it asks of the answer's form, e.g. Chat's `stream_options`). */
  request: JsonObject;
}

export interface WireProtocol {
  name: ProtocolName;
  /** The path the protocol is served at, after the run's base path. */
  path: string;
  read(body: JsonObject): ModelRequest;
  /** The first documented rule the request breaks. */
  violation(body: JsonObject, headers: Record<string, string>): Violation | undefined;
  /** The parts of the request the provider counts as prompt (system, tools, messages). */
  prompt(body: JsonObject): unknown;
  /** The conversation items, in order (to compare consecutive requests' prefixes). */
  items(body: JsonObject): unknown[];
  /** Whether `headers` carry `key` the way this protocol sends it. */
  authenticated(headers: Record<string, string>, key: string): boolean;
  json(answer: ModelAnswer, context: AnswerContext): unknown;
  /** The answer as server-sent events, each a whole `event:`/`data:` record. */
  events(answer: ModelAnswer, context: AnswerContext): string[];
  errorBody(violation: Violation): unknown;
  /** The provider's own context-overflow error. */
  overflow(tokens: number, limit: number, body: JsonObject): Violation;
  unauthorized(): Violation;
}

/** A server-sent event as the OpenAI and Anthropic APIs write them (named, JSON data). */
export function sse(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Splits `text` into chunks of `size` characters (stream deltas). */
export function chunks(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out;
}
