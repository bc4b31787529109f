/**
 * @module gateway/protocols/responses-protocol
 * OpenAI Responses through the gateway: the history is `input` (a string is
 * one user message), the answer is the response's `output` items, of any type
 * (the engine keeps those it does not know opaque), a stream's last event
 * (`response.completed`, or `response.incomplete`) carries the whole response
 * (or, should its `output` be empty, the items of `response.output_item.done`),
 * usage is `usage.input_tokens` (with `input_tokens_details.cached_tokens`). A request that chains state
 * kept on OpenAI's side (`previous_response_id`, `conversation`) has no
 * history here to manage: it is forwarded unchanged.
 */

import { recallResponsesTool } from "@condense/core";
import type { Response as OpenAIResponse } from "openai/resources/responses/responses";
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
  type RequestBody,
  type StreamAccumulator,
  type ToolRoundHooks,
  toolsField,
} from "./protocol";

function responseAnswer(body: unknown): ProtocolAnswer | undefined {
  if (!isRecord(body) || !Array.isArray(body.output)) return undefined;
  const response = body as Partial<OpenAIResponse>;
  const usage = response.usage;
  return protocolAnswer(
    body.output as unknown[],
    openAIUsage(usage?.input_tokens, usage?.input_tokens_details),
    count(usage?.output_tokens),
  );
}

function responsesAccumulator(): StreamAccumulator {
  let answer: ProtocolAnswer | undefined;
  // Each finished output item, by position: the answer when the last event leaves `output` empty.
  const done: unknown[] = [];
  return {
    event(event) {
      const data = eventData(event);
      const type = data?.type ?? event.event;
      if (type === "response.output_item.done") {
        const index = count(data?.output_index);
        if (index !== undefined && isRecord(data?.item)) done[index] = data.item;
      } else if (type === "response.completed" || type === "response.incomplete") {
        answer = responseAnswer(data?.response);
        const items = done.filter((item) => item !== undefined);
        if (answer !== undefined && answer.messages.length === 0 && items.length > 0) {
          answer = { ...answer, messages: items };
        }
      } else if (type === "response.failed" || type === "error") {
        answer = undefined;
      }
    },
    result: () => answer,
  };
}

/** The request's `input` as items (a string is one user message). */
function inputItems(body: RequestBody): unknown[] {
  if (typeof body.input === "string") return [{ role: "user", content: body.input }];
  return Array.isArray(body.input) ? body.input : [];
}

const responsesTools: ToolRoundHooks = {
  ...toolsField(recallResponsesTool),
  calls: (answer) =>
    answer.messages.flatMap((item): AnswerToolCall[] =>
      isRecord(item) && item.type === "function_call" && typeof item.call_id === "string"
        ? [{ id: item.call_id, name: String(item.name ?? ""), arguments: item.arguments }]
        : [],
    ),
  withResults(body, answer, results) {
    // The output items go back as input items, as the Responses API takes them (reasoning included).
    const answers = results.map((result) => ({
      type: "function_call_output",
      call_id: result.id,
      output: result.text,
    }));
    return { ...body, input: [...inputItems(body), ...answer.messages, ...answers] };
  },
  withoutToolCalls: (body) => ({ ...body, tool_choice: "none" }),
};

export const responsesProtocol: GatewayProtocol = {
  name: "responses",
  format: "responses",
  history(body) {
    const chained =
      (body.previous_response_id !== undefined && body.previous_response_id !== null) ||
      (body.conversation !== undefined && body.conversation !== null);
    if (chained) return undefined;
    if (typeof body.input === "string")
      return { messages: [{ role: "user", content: body.input }] };
    return Array.isArray(body.input) ? { messages: body.input } : undefined;
  },
  withContext(body, context) {
    return { ...body, input: context.messages };
  },
  // `instructions` is not part of the history: it is sent, and billed, on every request.
  overheadFields: ["instructions", "tools"],
  maxOutputTokens(body) {
    return count(body.max_output_tokens);
  },
  answer: responseAnswer,
  accumulator: responsesAccumulator,
  tools: responsesTools,
  errorBody: openAIErrorBody,
  streamError(code, message) {
    // The Responses stream's own error event, which the SDKs raise.
    return `event: error\ndata: ${JSON.stringify({ type: "error", code, message, param: null })}\n\n`;
  },
};
