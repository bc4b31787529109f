/**
 * @module gateway/responses-protocol
 * OpenAI Responses through the gateway: the history is `input` (a string is
 * one user message), the answer is the response's `output` items, a stream's
 * last event (`response.completed`, or `response.incomplete`) carries the
 * whole response, usage is `usage.input_tokens`. A request that chains state
 * kept on OpenAI's side (`previous_response_id`, `conversation`) has no
 * history here to manage: it is forwarded unchanged.
 */

import type { Response as OpenAIResponse } from "openai/resources/responses/responses";
import {
  count,
  eventData,
  type GatewayProtocol,
  isRecord,
  openAIErrorType,
  type ProtocolAnswer,
  type StreamAccumulator,
} from "./protocol";

function responseAnswer(body: unknown): ProtocolAnswer | undefined {
  if (!isRecord(body) || !Array.isArray(body.output)) return undefined;
  const response = body as Partial<OpenAIResponse>;
  const inputTokens = count(response.usage?.input_tokens);
  return {
    messages: body.output as unknown[],
    ...(inputTokens !== undefined ? { inputTokens } : {}),
  };
}

function responsesAccumulator(): StreamAccumulator {
  let answer: ProtocolAnswer | undefined;
  return {
    event(event) {
      const data = eventData(event);
      const type = data?.type ?? event.event;
      if (type === "response.completed" || type === "response.incomplete") {
        answer = responseAnswer(data?.response);
      } else if (type === "response.failed" || type === "error") {
        answer = undefined;
      }
    },
    result: () => answer,
  };
}

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
  maxOutputTokens(body) {
    return count(body.max_output_tokens);
  },
  answer: responseAnswer,
  accumulator: responsesAccumulator,
  errorBody(status, code, message) {
    return { error: { message, type: openAIErrorType(status), param: null, code } };
  },
  streamError(code, message) {
    // The Responses stream's own error event, which the SDKs raise.
    return `event: error\ndata: ${JSON.stringify({ type: "error", code, message, param: null })}\n\n`;
  },
};
