/**
 * @module protocols/openai-responses
 * OpenAI's Responses API (`POST …/responses`) for the test servers: the
 * answer as OpenAI sends it — whole, or streamed as `response.created`,
 * `response.in_progress`, then per output item `response.output_item.added`,
 * its deltas (a message's text and refusal parts, a function call's
 * arguments, a custom tool call's input) with their `done` events,
 * `response.output_item.done`, and `response.completed` (or
 * `response.incomplete`) with the usage. Reasoning comes first as a reasoning
 * item whose `encrypted_content` is sealed (`rules/signatures`); output items
 * given as they are pass through whole. OpenAI's errors, and its rules
 * (`rules/responses-rules`).
 */

import type {
  Response,
  ResponseOutputItem,
  ResponseOutputMessage,
  ResponseStreamEvent,
  ResponseUsage,
} from "openai/resources/responses/responses";
import type { Answer, Usage } from "../reply.ts";
import { breakpointModel, openaiCacheViolation } from "../rules/openai-cache-rules.ts";
import { inputItems, responsesViolation } from "../rules/responses-rules.ts";
import { sealReasoning } from "../rules/signatures.ts";
import {
  type AnswerContext,
  CREATED,
  chunks,
  openaiErrorBody,
  openaiUnauthorized,
  type RenderedAnswer,
  sse,
  type WireProtocol,
} from "./wire.ts";

const TEXT_PIECE = 16;
const ARGUMENT_PIECE = 8;

function output(answer: Answer, serial: number): ResponseOutputItem[] {
  if (answer.items !== undefined) return answer.items as ResponseOutputItem[];
  const items: ResponseOutputItem[] = [];
  if (answer.thinking !== null) {
    items.push({
      type: "reasoning",
      id: `rs_${serial}`,
      summary: [{ type: "summary_text", text: answer.thinking }],
      encrypted_content: sealReasoning(answer.thinking),
    });
  }
  const text = answer.text ?? "";
  if (answer.toolCalls.length === 0 || text !== "" || answer.refusal !== null) {
    items.push({
      type: "message",
      id: `msg_${serial}`,
      role: "assistant",
      status: "completed",
      content: [
        ...(answer.text === null
          ? []
          : [{ type: "output_text" as const, text, annotations: [], logprobs: [] }]),
        ...(answer.refusal === null ? [] : [{ type: "refusal" as const, refusal: answer.refusal }]),
      ],
    });
  }
  answer.toolCalls.forEach((call, index) => {
    items.push(
      call.custom === true
        ? {
            type: "custom_tool_call",
            id: `ctc_${serial}_${index}`,
            call_id: call.id,
            name: call.name,
            input: call.arguments,
          }
        : {
            type: "function_call",
            id: `fc_${serial}_${index}`,
            call_id: call.id,
            name: call.name,
            arguments: call.arguments,
            status: "completed",
          },
    );
  });
  return items;
}

function response(answer: Answer, context: AnswerContext): Response {
  const incomplete =
    answer.finishReason === "length"
      ? ("max_output_tokens" as const)
      : answer.finishReason === "content_filter"
        ? ("content_filter" as const)
        : null;
  const items = output(answer, context.serial);
  const whole: Response = {
    id: `resp_${context.serial}`,
    object: "response",
    created_at: CREATED,
    status: incomplete === null ? "completed" : "incomplete",
    incomplete_details: incomplete === null ? null : { reason: incomplete },
    model: context.model,
    output: items,
    output_text: answer.text ?? "",
    error: null,
    instructions: null,
    metadata: null,
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    access_programs: null,
  };
  if (answer.usage !== null) whole.usage = usage(answer.usage, context.model);
  return whole;
}

/** The usage; writes to the cache are counted from GPT-5.6 on (earlier models report 0), as OpenAI does. */
function usage(
  { prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens }: Usage,
  model: string,
): ResponseUsage {
  const written = breakpointModel(model) ? (cache_write_tokens ?? 0) : 0;
  return {
    input_tokens: prompt_tokens,
    input_tokens_details: { cached_tokens: cache_read_tokens ?? 0, cache_write_tokens: written },
    output_tokens: completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: prompt_tokens + completion_tokens,
  };
}

/** The events of one message item's content parts, between its `added` and `done`. */
function messageEvents(
  item: ResponseOutputMessage,
  output_index: number,
  push: (event: DistributiveOmit<ResponseStreamEvent, "sequence_number">) => void,
): void {
  item.content.forEach((part, content_index) => {
    const where = { item_id: item.id, output_index, content_index };
    if (part.type === "output_text") {
      push({
        type: "response.content_part.added",
        ...where,
        part: { type: "output_text", text: "", annotations: [], logprobs: [] },
      });
      for (const delta of chunks(part.text, TEXT_PIECE)) {
        push({ type: "response.output_text.delta", ...where, delta, logprobs: [] });
      }
      push({ type: "response.output_text.done", ...where, text: part.text, logprobs: [] });
    } else {
      push({ type: "response.content_part.added", ...where, part: { ...part, refusal: "" } });
      push({ type: "response.refusal.delta", ...where, delta: part.refusal });
      push({ type: "response.refusal.done", ...where, refusal: part.refusal });
    }
    push({ type: "response.content_part.done", ...where, part });
  });
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

function render(answer: Answer, context: AnswerContext): RenderedAnswer {
  const whole = response(answer, context);
  const events: string[] = [];
  let sequence = 0;
  const push = (event: DistributiveOmit<ResponseStreamEvent, "sequence_number">) =>
    events.push(sse(event.type, { ...event, sequence_number: sequence++ }));
  const started = { ...whole, status: "in_progress" as const, output: [], usage: undefined };
  push({ type: "response.created", response: started });
  push({ type: "response.in_progress", response: started });
  let beforeFinish: number | undefined;
  whole.output.forEach((item, output_index) => {
    if (item.type === "message") {
      push({
        type: "response.output_item.added",
        output_index,
        item: { ...item, status: "in_progress", content: [] },
      });
      messageEvents(item, output_index, push);
    } else if (item.type === "function_call") {
      const item_id = item.id ?? "";
      push({
        type: "response.output_item.added",
        output_index,
        item: { ...item, arguments: "", status: "in_progress" },
      });
      for (const delta of chunks(item.arguments, ARGUMENT_PIECE)) {
        push({ type: "response.function_call_arguments.delta", item_id, output_index, delta });
      }
      push({
        type: "response.function_call_arguments.done",
        item_id,
        output_index,
        arguments: item.arguments,
      });
    } else if (item.type === "custom_tool_call") {
      const item_id = item.id ?? "";
      push({ type: "response.output_item.added", output_index, item: { ...item, input: "" } });
      for (const delta of chunks(item.input, ARGUMENT_PIECE)) {
        push({ type: "response.custom_tool_call_input.delta", item_id, output_index, delta });
      }
      push({
        type: "response.custom_tool_call_input.done",
        item_id,
        output_index,
        input: item.input,
      });
    } else {
      push({ type: "response.output_item.added", output_index, item });
    }
    beforeFinish ??= events.length;
    push({ type: "response.output_item.done", output_index, item });
  });
  beforeFinish ??= events.length;
  if (whole.status === "incomplete") push({ type: "response.incomplete", response: whole });
  else push({ type: "response.completed", response: whole });
  // The Responses stream has no `[DONE]`: it ends with the connection.
  return { json: whole, events, beforeFinish };
}

export const openaiResponses: WireProtocol = {
  name: "responses",
  path: "/responses",
  render,
  errorBody: openaiErrorBody,
  overflow: () => ({
    status: 400,
    message:
      "Your input exceeds the context window of this model. Please adjust your input and try again.",
    param: "input",
    code: "context_length_exceeded",
  }),
  unauthorized: openaiUnauthorized,
  authenticated: (headers, key) => headers.authorization === `Bearer ${key}`,
  prompt: (body) => ({ instructions: body.instructions, tools: body.tools, input: body.input }),
  items: (body) => inputItems(body),
  violation: (body) => responsesViolation(body) ?? openaiCacheViolation(body, "responses"),
};
