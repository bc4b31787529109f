/**
 * @module openai-compaction
 * `withCompaction` for an `openai` client: `chat.completions.create` and
 * `responses.create` keep their conversation in a Condense session (the steps
 * are `conversation`'s). The caller passes what is new each call (the user's
 * message, tool results; a system prompt once, on the first call); the session's
 * context is sent in their place. A streamed answer is assembled from its chunks
 * while they pass through to the caller, and appended when the stream ends.
 */

import type OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type {
  ResponseCreateParamsBase,
  ResponseInput,
  ResponseStreamEvent,
  Response as ResponsesResponse,
} from "openai/resources/responses/responses";
import type { Stream } from "openai/streaming";
import type { InputMessage, UsageReport } from "./api-types.js";
import { ChatStreamAssembler } from "./chat-stream.js";
import { Conversation, type ConversationOptions } from "./conversation.js";
import { overlay } from "./overlay.js";
import { type StreamingCreate, watchStream } from "./sdk-stream.js";
import { chatUsage, responsesUsage } from "./usage/usage-report.js";

type RequestOptions = Parameters<OpenAI["chat"]["completions"]["create"]>[1];

export interface OpenAICompactionOptions extends ConversationOptions {
  /**
   * Ask streams for `usage` (`stream_options.include_usage`) so their prompt tokens calibrate the
   * session; the extra usage chunk is hidden from callers that did not ask for it. Turn off for
   * servers that reject `stream_options`.
   * @default true
   */
  streamUsage?: boolean;
}

/** `chat.completions` with a compacting `create`. */
export interface CompactingChatCompletions {
  create: StreamingCreate<
    ChatCompletionCreateParamsBase,
    ChatCompletion,
    Stream<ChatCompletionChunk>,
    RequestOptions
  >;
}

/** `responses` with a compacting `create`. */
export interface CompactingResponses {
  create: StreamingCreate<
    ResponseCreateParamsBase,
    ResponsesResponse,
    Stream<ResponseStreamEvent>,
    RequestOptions
  >;
}

/** The wrapped client: everything of `C`, with the two `create` methods replaced. */
export type CompactingOpenAI<C extends OpenAI> = Omit<C, "chat" | "responses"> & {
  chat: Omit<C["chat"], "completions"> & {
    completions: Omit<C["chat"]["completions"], "create"> & CompactingChatCompletions;
  };
  responses: Omit<C["responses"], "create"> & CompactingResponses;
};

/** Output item types the session can store (hosted-tool calls are the provider's business). */
const STORABLE_OUTPUT = new Set(["message", "function_call", "reasoning"]);

/** A message of the `openai` types as the service's untyped input record. */
function asInput(message: object): InputMessage {
  return { ...message };
}

function assistantMessage(message: ChatCompletionMessage): InputMessage {
  const calls = message.tool_calls ?? [];
  let content: string | null = message.content;
  if ((content === null || content === "") && typeof message.refusal === "string")
    content = message.refusal;
  if (calls.length === 0) return { role: "assistant", content: content ?? "" };
  return { role: "assistant", content: content === "" ? null : content, tool_calls: calls };
}

function storableOutput(response: ResponsesResponse): InputMessage[] {
  return response.output.filter((item) => STORABLE_OUTPUT.has(item.type)).map(asInput);
}

class Compactor {
  readonly #chat: OpenAI["chat"]["completions"];
  readonly #responses: OpenAI["responses"];
  readonly #options: OpenAICompactionOptions;
  readonly #conversation: Conversation;

  constructor(openai: OpenAI, options: OpenAICompactionOptions) {
    this.#chat = openai.chat.completions;
    this.#responses = openai.responses;
    this.#options = options;
    this.#conversation = new Conversation(options);
  }

  readonly chatCreate = (
    body: ChatCompletionCreateParamsBase,
    requestOptions?: RequestOptions,
  ): Promise<ChatCompletion | Stream<ChatCompletionChunk>> => {
    const { messages, ...rest } = body;
    const signal = requestOptions?.signal ?? undefined;
    const model = this.#options.model ?? body.model;
    const conversation = this.#conversation;
    return conversation.turn(signal, async (handOver) => {
      const context = await conversation.prepare({
        messages: messages.map(asInput),
        format: "openai",
        model,
        signal,
      });
      const streaming = body.stream === true;
      const addUsage =
        streaming &&
        this.#options.streamUsage !== false &&
        body.stream_options?.include_usage !== true;
      const result = await conversation.send("openai", context, signal, (sent) =>
        this.#chat.create(
          {
            ...rest,
            messages: sent.messages as ChatCompletionMessageParam[],
            ...(addUsage
              ? { stream_options: { ...body.stream_options, include_usage: true } }
              : {}),
          },
          requestOptions,
        ),
      );
      const append = (messages: InputMessage[], usage: UsageReport | undefined) =>
        conversation.appendAnswer({ messages, format: "openai", model, usage });

      if (!streaming) {
        const completion = result as ChatCompletion;
        const message = completion.choices[0]?.message;
        await append(
          message === undefined ? [] : [assistantMessage(message)],
          chatUsage(completion.usage),
        );
        return completion;
      }

      const assembler = new ChatStreamAssembler();
      return watchStream(
        result as Stream<ChatCompletionChunk>,
        handOver(),
        (chunk) => {
          assembler.add(chunk);
          // The usage-only chunk the caller did not ask for.
          return !(addUsage && chunk.choices.length === 0);
        },
        async () => {
          // Only a complete answer is stored; a stream the caller abandoned never gets here.
          if (assembler.finished) await append([asInput(assembler.message())], assembler.usage);
        },
      );
    });
  };

  readonly responsesCreate = async (
    body: ResponseCreateParamsBase,
    requestOptions?: RequestOptions,
  ): Promise<ResponsesResponse | Stream<ResponseStreamEvent>> => {
    if (body.previous_response_id != null || body.conversation != null) {
      throw new TypeError(
        "withCompaction: previous_response_id and conversation make OpenAI keep the history, but this client sends the session's compacted history itself; leave them out",
      );
    }
    const { input, ...rest } = body;
    const items: InputMessage[] =
      input === undefined
        ? []
        : typeof input === "string"
          ? [{ role: "user", content: input }]
          : input.map(asInput);
    const signal = requestOptions?.signal ?? undefined;
    const model = this.#options.model ?? (typeof body.model === "string" ? body.model : undefined);
    const conversation = this.#conversation;
    return conversation.turn(signal, async (handOver) => {
      const context = await conversation.prepare({
        messages: items,
        format: "responses",
        model,
        signal,
      });
      const result = await conversation.send("responses", context, signal, (sent) =>
        this.#responses.create({ ...rest, input: sent.messages as ResponseInput }, requestOptions),
      );
      const append = (response: ResponsesResponse) =>
        conversation.appendAnswer({
          messages: storableOutput(response),
          format: "responses",
          model,
          usage: responsesUsage(response.usage),
        });

      if (body.stream !== true) {
        const response = result as ResponsesResponse;
        await append(response);
        return response;
      }

      let final: ResponsesResponse | undefined;
      return watchStream(
        result as Stream<ResponseStreamEvent>,
        handOver(),
        (event) => {
          if (event.type === "response.completed" || event.type === "response.incomplete")
            final = event.response;
          return true;
        },
        async () => {
          if (final !== undefined) await append(final);
        },
      );
    });
  };
}

/**
 * Wraps an `openai` client so that `chat.completions.create` and `responses.create` run on a
 * Condense session (see the module comment). Everything else is the client as it was.
 */
export function withOpenAICompaction<C extends OpenAI>(
  openai: C,
  options: OpenAICompactionOptions,
): CompactingOpenAI<C> {
  const compactor = new Compactor(openai, options);
  const completions = overlay(openai.chat.completions, { create: compactor.chatCreate });
  const chat = overlay(openai.chat, { completions });
  const responses = overlay(openai.responses, { create: compactor.responsesCreate });
  return overlay(openai, { chat, responses }) as unknown as CompactingOpenAI<C>;
}
