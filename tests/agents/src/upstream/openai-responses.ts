/**
 * @module upstream/openai-responses
 * The scripted upstream's OpenAI Responses protocol (`POST /responses`): the
 * request read for the model, the rules (`upstream/responses-rules`), and the
 * answer as OpenAI streams it — `response.created`, `response.in_progress`,
 * then per output item `response.output_item.added`, its deltas (text, a
 * function call's arguments, a custom tool call's input), their `done`
 * events and `response.output_item.done`, and `response.completed` with the
 * usage. Reasoning, when asked for, comes first as a reasoning item whose
 * `encrypted_content` is sealed (`upstream/signatures`).
 */

import {
  contentText,
  inputItems,
  isObject,
  itemType,
  type JsonObject,
  objects,
  responsesViolation,
  sealReasoning,
  text,
} from "@condense/test-servers";
import type {
  Response,
  ResponseOutputItem,
  ResponseStreamEvent,
  ResponseUsage,
} from "openai/resources/responses/responses";
import type { ModelAnswer, ToolResult } from "../model/model-turn.ts";
import { type AnswerContext, chunks, sse, type WireProtocol } from "./wire.ts";

function outputText(value: unknown): string {
  if (typeof value === "string") return value;
  return contentText(value);
}

function trailingResults(items: JsonObject[]): ToolResult[] {
  const results: ToolResult[] = [];
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index];
    if (item === undefined) break;
    const type = itemType(item);
    if (type !== "function_call_output" && type !== "custom_tool_call_output") break;
    results.unshift({ callId: text(item.call_id), text: outputText(item.output) });
  }
  return results;
}

function usage(inputTokens: number): ResponseUsage {
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: 24,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + 24,
  };
}

function output(answer: ModelAnswer, serial: number): ResponseOutputItem[] {
  const items: ResponseOutputItem[] = [];
  if (answer.thinking !== undefined) {
    items.push({
      type: "reasoning",
      id: `rs_e2e_${serial}`,
      summary: [{ type: "summary_text", text: answer.thinking }],
      encrypted_content: sealReasoning(answer.thinking),
    });
  }
  if (answer.text !== undefined) {
    items.push({
      type: "message",
      id: `msg_e2e_${serial}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: answer.text, annotations: [], logprobs: [] }],
    });
  }
  const call = answer.call;
  if (call?.kind === "function") {
    items.push({
      type: "function_call",
      id: `fc_e2e_${serial}`,
      call_id: `call_${call.id}`,
      name: call.name,
      arguments: JSON.stringify(call.input),
      status: "completed",
    });
  } else if (call?.kind === "custom") {
    items.push({
      type: "custom_tool_call",
      id: `ctc_e2e_${serial}`,
      call_id: `call_${call.id}`,
      name: call.name,
      input: call.input,
    });
  }
  return items;
}

function response(answer: ModelAnswer, context: AnswerContext): Response {
  return {
    id: `resp_e2e_${context.serial}`,
    object: "response",
    created_at: 1_795_000_000,
    status: "completed",
    model: context.model,
    output: output(answer, context.serial),
    usage: usage(context.inputTokens),
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: null,
    parallel_tool_calls: true,
    temperature: null,
    tool_choice: "auto",
    tools: [],
    top_p: null,
    output_text: answer.text ?? "",
    access_programs: null,
  };
}

export const openaiResponses: WireProtocol = {
  name: "responses",
  path: "/responses",
  read(body) {
    const items = inputItems(body);
    const last = items.at(-1);
    const system = [
      text(body.instructions),
      ...items
        .filter(
          (item) =>
            itemType(item) === "message" && (item.role === "developer" || item.role === "system"),
        )
        .map((item) => contentText(item.content)),
    ].join("\n");
    return {
      tools: objects(body.tools).map((tool) => text(tool.name) || text(tool.type)),
      toolResults: trailingResults(items),
      userText:
        last !== undefined && itemType(last) === "message" && last.role === "user"
          ? contentText(last.content)
          : "",
      systemText: system,
      reasoning:
        isObject(body.reasoning) &&
        Array.isArray(body.include) &&
        body.include.includes("reasoning.encrypted_content"),
    };
  },
  violation: (body) => responsesViolation(body),
  prompt: (body) => ({ instructions: body.instructions, tools: body.tools, input: body.input }),
  items: (body) => inputItems(body),
  authenticated: (headers, key) => headers.authorization === `Bearer ${key}`,
  json: response,
  events(answer, context) {
    const whole = response(answer, context);
    let sequence = 0;
    const out: string[] = [];
    const push = (event: ResponseStreamEvent) => out.push(sse(event.type, event));
    const next = () => sequence++;
    const started = { ...whole, status: "in_progress" as const, output: [], usage: undefined };
    push({ type: "response.created", response: started, sequence_number: next() });
    push({ type: "response.in_progress", response: started, sequence_number: next() });
    whole.output.forEach((item, output_index) => {
      if (item.type === "message") {
        push({
          type: "response.output_item.added",
          output_index,
          item: { ...item, status: "in_progress", content: [] },
          sequence_number: next(),
        });
        const part = item.content[0];
        const full = part?.type === "output_text" ? part.text : "";
        push({
          type: "response.content_part.added",
          item_id: item.id,
          output_index,
          content_index: 0,
          part: { type: "output_text", text: "", annotations: [], logprobs: [] },
          sequence_number: next(),
        });
        for (const delta of chunks(full, 24)) {
          push({
            type: "response.output_text.delta",
            item_id: item.id,
            output_index,
            content_index: 0,
            delta,
            logprobs: [],
            sequence_number: next(),
          });
        }
        push({
          type: "response.output_text.done",
          item_id: item.id,
          output_index,
          content_index: 0,
          text: full,
          logprobs: [],
          sequence_number: next(),
        });
        push({
          type: "response.content_part.done",
          item_id: item.id,
          output_index,
          content_index: 0,
          part: { type: "output_text", text: full, annotations: [], logprobs: [] },
          sequence_number: next(),
        });
      } else if (item.type === "function_call") {
        const id = item.id ?? "";
        push({
          type: "response.output_item.added",
          output_index,
          item: { ...item, arguments: "", status: "in_progress" },
          sequence_number: next(),
        });
        for (const delta of chunks(item.arguments, 40)) {
          push({
            type: "response.function_call_arguments.delta",
            item_id: id,
            output_index,
            delta,
            sequence_number: next(),
          });
        }
        push({
          type: "response.function_call_arguments.done",
          item_id: id,
          output_index,
          arguments: item.arguments,
          sequence_number: next(),
        });
      } else if (item.type === "custom_tool_call") {
        const id = item.id ?? "";
        push({
          type: "response.output_item.added",
          output_index,
          item: { ...item, input: "" },
          sequence_number: next(),
        });
        for (const delta of chunks(item.input, 40)) {
          push({
            type: "response.custom_tool_call_input.delta",
            item_id: id,
            output_index,
            delta,
            sequence_number: next(),
          });
        }
        push({
          type: "response.custom_tool_call_input.done",
          item_id: id,
          output_index,
          input: item.input,
          sequence_number: next(),
        });
      } else {
        push({ type: "response.output_item.added", output_index, item, sequence_number: next() });
      }
      push({ type: "response.output_item.done", output_index, item, sequence_number: next() });
    });
    push({ type: "response.completed", response: whole, sequence_number: next() });
    return out;
  },
  errorBody: (violation) => ({
    error: {
      message: violation.message,
      type: violation.type ?? "invalid_request_error",
      param: violation.param ?? null,
      code: violation.code ?? null,
    },
  }),
  overflow: () => ({
    status: 400,
    message:
      "Your input exceeds the context window of this model. Please adjust your input and try again.",
    param: "input",
    code: "context_length_exceeded",
  }),
  unauthorized: () => ({
    status: 401,
    message:
      "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
    code: "invalid_api_key",
  }),
};
