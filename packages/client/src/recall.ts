/**
 * @module recall
 * The `recall` tool for agents built on the client: the tool's definition for
 * Chat Completions, Responses and Anthropic requests (the same as the
 * service's gateway adds), `answerRecall`, which answers one call from the
 * session's search or stored tool outputs, and the adapters that wrap the
 * answer as each API's tool-result message. A model's bad arguments, an
 * unknown tool-call id or a query the service refuses become tool-result text
 * the model can act on; a network, auth or server failure still rejects with
 * `CondenseApiError`, since the model cannot fix those.
 */

import type { Condense } from "./client.js";
import { CondenseApiError } from "./errors.js";
import {
  formatRecallAnswer,
  formatRecallError,
  parseRecallArguments,
  type RecallFormatOptions,
} from "./generated/recall-tool.generated.js";
import type { CallOptions } from "./transport.js";

/**
 * A recall call as any of the three APIs delivers it: Chat Completions' `tool_calls[i]`
 * (`{ function: { arguments } }`), a Responses `function_call` item (`{ arguments }`), an
 * Anthropic `tool_use` block (`{ input }`), or the bare arguments (a JSON string or an object).
 */
export type RecallCall =
  | string
  | { function: { arguments: string } }
  | { arguments: string }
  | { input: unknown }
  | Record<string, unknown>;

export interface AnswerRecallOptions extends CallOptions, RecallFormatOptions {}

/** The arguments inside whichever shape `call` has (the arguments themselves have none of these keys). */
function argumentsOf(call: RecallCall): unknown {
  if (typeof call !== "object" || call === null) return call;
  if ("function" in call) {
    const fn = call.function;
    return typeof fn === "object" && fn !== null && "arguments" in fn ? fn.arguments : undefined;
  }
  if ("arguments" in call) return call.arguments;
  if ("input" in call) return call.input;
  return call;
}

/**
 * Answers one `recall` call of session `sessionId`: a search (`client.search`) or one tool call's
 * stored output (`GET /v1/sessions/{id}/tool-outputs/{toolCallId}`), formatted as quoted data
 * within `maxChars`. Returns the tool-result text; rejects only for what the model cannot fix
 * (network, auth, server errors, an unknown session).
 */
export async function answerRecall(
  client: Condense,
  sessionId: string,
  call: RecallCall,
  options: AnswerRecallOptions = {},
): Promise<string> {
  const { maxChars, ...callOptions } = options;
  const format = maxChars === undefined ? {} : { maxChars };
  const parsed = parseRecallArguments(argumentsOf(call));
  if (!parsed.ok) return formatRecallError(parsed.message);
  const { request } = parsed;
  try {
    if (request.kind === "search") {
      const body = await client.search(sessionId, {
        q: request.query,
        limit: request.limit,
        ...callOptions,
      });
      return formatRecallAnswer(
        {
          kind: "search",
          query: request.query,
          results: body.results,
          indexingComplete: body.indexing.complete,
        },
        format,
      );
    }
    const output = await client.session(sessionId).toolOutput(request.toolCallId, callOptions);
    return formatRecallAnswer({ kind: "tool-output", output }, format);
  } catch (error) {
    // A query the service refused (syntax, length): the model can rephrase it.
    if (request.kind === "search" && isRefusedQuery(error)) {
      return formatRecallError(
        `the search refused the query: ${error.message}. Rephrase it with plain words.`,
      );
    }
    // An id the session never saw: the model can correct it or search instead.
    if (
      request.kind === "tool-output" &&
      CondenseApiError.isInstance(error) &&
      error.status === 404
    ) {
      return formatRecallError(
        `no stored output for toolCallId "${request.toolCallId}" in this conversation. Check the id (it must match an earlier tool call exactly), or call recall with a "query" instead.`,
      );
    }
    throw error;
  }
}

function isRefusedQuery(error: unknown): error is CondenseApiError {
  return (
    CondenseApiError.isInstance(error) &&
    error.status === 400 &&
    (error.code === "invalid_query" || error.code === "invalid_request")
  );
}

/** The Chat Completions tool message answering `toolCallId` (`tool_calls[i].id`). */
export function recallChatCompletionsResult(
  toolCallId: string,
  text: string,
): { role: "tool"; tool_call_id: string; content: string } {
  return { role: "tool", tool_call_id: toolCallId, content: text };
}

/** The Responses input item answering `callId` (the `function_call` item's `call_id`). */
export function recallResponsesResult(
  callId: string,
  text: string,
): { type: "function_call_output"; call_id: string; output: string } {
  return { type: "function_call_output", call_id: callId, output: text };
}

/**
 * The Anthropic `tool_result` block answering `toolUseId` (the `tool_use` block's `id`); send it
 * in a user message: `{ role: "user", content: [block] }`.
 */
export function recallAnthropicResult(
  toolUseId: string,
  text: string,
): { type: "tool_result"; tool_use_id: string; content: string } {
  return { type: "tool_result", tool_use_id: toolUseId, content: text };
}
