/**
 * @module openai-compaction
 * `withCompaction(openai, { session })`: an `openai` client whose
 * `chat.completions.create` and `responses.create` keep their conversation in
 * a Condense session, so it never outgrows the model's window.
 *
 * Each call:
 * 1. appends the messages the caller passes (what is new this turn: the user's
 *    message, tool results; a system prompt once, on the first call) to the
 *    session, then fetches the session's context (`GET /context`);
 * 2. sends that context to the model in place of the caller's messages;
 * 3. on an error, reports it to `POST /overflow`: if the service recognises a
 *    context overflow it compacts and returns a smaller context, which is sent
 *    again (at most `maxRecoveries` times; the error after the last retry is
 *    not reported, and the first error is thrown); if not (422
 *    `not_an_overflow`) the error is thrown as it is;
 * 4. appends the model's answer (tool calls included; for a stream, assembled
 *    from the chunks while they pass through to the caller) with the prompt
 *    tokens the provider reported, which calibrate the session's estimates.
 *
 * An answer whose append fails is kept and appended before anything else on
 * the next call, so the session never silently loses a turn. A call that
 * failed after its messages were appended (a rate limit, a lost connection)
 * may be repeated with the same messages: the repeat reuses the first
 * append's `Idempotency-Key`, so they are stored once.
 * Calls on one session are one conversation: make them one after another.
 */

import type OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type {
  ResponseCreateParamsBase,
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
  ResponseInput,
  ResponseStreamEvent,
  Response as ResponsesResponse,
} from "openai/resources/responses/responses";
import type { Stream } from "openai/streaming";
import type { ContextResponseBody, InputMessage, MessageFormatName } from "./api-types.js";
import { ChatStreamAssembler } from "./chat-stream.js";
import { CondenseError } from "./errors.js";
import type { SessionHandle } from "./session.js";

type RequestOptions = Parameters<OpenAI["chat"]["completions"]["create"]>[1];

export interface RecoveryEvent {
  /** 1 for the first recovery of a call, 2 for the second. */
  attempt: number;
  /** What the provider threw. */
  error: unknown;
  /** Context tokens after the service's overflow compaction. */
  tokens: number;
  /** Compaction passes the service ran. */
  passes: number;
}

export interface WithCompactionOptions {
  /** The session that holds the conversation. */
  session: SessionHandle;
  /** The model name the session counts tokens for (default: each request's `model`). */
  model?: string;
  /** Overflow recoveries per call before the provider's first error is thrown (default 2). */
  maxRecoveries?: number;
  /**
   * Ask streams for `usage` (`stream_options.include_usage`) so their prompt tokens calibrate the
   * session; the extra usage chunk is hidden from callers that did not ask for it (default true).
   * Turn off for servers that reject `stream_options`.
   */
  streamUsage?: boolean;
  /** Called after each overflow recovery, before the request is sent again. */
  onRecovery?: (event: RecoveryEvent) => void;
  /**
   * Called when the model's answer could not be appended (the service was unreachable). The answer
   * is kept and appended first on the next call; by default nothing else happens.
   */
  onAppendError?: (error: unknown) => void;
}

/** `chat.completions` with a compacting `create`. */
export interface CompactingChatCompletions {
  create(
    body: ChatCompletionCreateParamsNonStreaming,
    options?: RequestOptions,
  ): Promise<ChatCompletion>;
  create(
    body: ChatCompletionCreateParamsStreaming,
    options?: RequestOptions,
  ): Promise<Stream<ChatCompletionChunk>>;
  create(
    body: ChatCompletionCreateParamsBase,
    options?: RequestOptions,
  ): Promise<Stream<ChatCompletionChunk> | ChatCompletion>;
}

/** `responses` with a compacting `create`. */
export interface CompactingResponses {
  create(
    body: ResponseCreateParamsNonStreaming,
    options?: RequestOptions,
  ): Promise<ResponsesResponse>;
  create(
    body: ResponseCreateParamsStreaming,
    options?: RequestOptions,
  ): Promise<Stream<ResponseStreamEvent>>;
  create(
    body: ResponseCreateParamsBase,
    options?: RequestOptions,
  ): Promise<Stream<ResponseStreamEvent> | ResponsesResponse>;
}

/** The wrapped client: everything of `C`, with the two `create` methods replaced. */
export type CompactingOpenAI<C extends OpenAI> = Omit<C, "chat" | "responses"> & {
  chat: Omit<C["chat"], "completions"> & {
    completions: Omit<C["chat"]["completions"], "create"> & CompactingChatCompletions;
  };
  responses: Omit<C["responses"], "create"> & CompactingResponses;
};

type StreamConstructor<T> = new (
  iterator: () => AsyncIterator<T>,
  controller: AbortController,
) => Stream<T>;

/** The caller's messages of a call that got no answer yet, and the key they were appended with. */
interface UnansweredInput {
  format: MessageFormatName;
  json: string;
  idempotencyKey: string;
}

interface PendingAppend {
  messages: InputMessage[];
  format: MessageFormatName;
  model: string | undefined;
  inputTokens: number | undefined;
  idempotencyKey: string;
}

/** Output item types the session can store (hosted-tool calls are the provider's business). */
const STORABLE_OUTPUT = new Set(["message", "function_call", "reasoning"]);

/**
 * A view of `target` in which `overrides` replace some properties; every other method is
 * called on `target` itself (so private fields and `this` keep working).
 */
function overlay<T extends object>(target: T, overrides: Record<string, unknown>): T {
  return new Proxy(target, {
    get(object, property) {
      if (typeof property === "string" && Object.hasOwn(overrides, property))
        return overrides[property];
      const value: unknown = Reflect.get(object, property, object);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}

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
  readonly #options: WithCompactionOptions;
  readonly #pending: PendingAppend[] = [];
  #unanswered: UnansweredInput | undefined;

  constructor(openai: OpenAI, options: WithCompactionOptions) {
    this.#chat = openai.chat.completions;
    this.#responses = openai.responses;
    this.#options = options;
  }

  get #session(): SessionHandle {
    return this.#options.session;
  }

  /** Appends answers that could not be appended earlier, in order, with their original keys. */
  async #flush(signal: AbortSignal | undefined): Promise<void> {
    while (this.#pending.length > 0) {
      const next = this.#pending[0];
      if (next === undefined) break;
      await this.#session.append(next.messages, {
        format: next.format,
        ...(next.model !== undefined ? { model: next.model } : {}),
        ...(next.inputTokens !== undefined ? { usage: { inputTokens: next.inputTokens } } : {}),
        idempotencyKey: next.idempotencyKey,
        ...(signal !== undefined ? { signal } : {}),
      });
      this.#pending.shift();
    }
  }

  async #appendAnswer(entry: Omit<PendingAppend, "idempotencyKey">): Promise<void> {
    if (entry.messages.length === 0) return;
    this.#pending.push({ ...entry, idempotencyKey: crypto.randomUUID() });
    try {
      await this.#flush(undefined);
    } catch (error) {
      this.#options.onAppendError?.(error);
    }
  }

  /** Appends the caller's new messages and returns the context to send. */
  async #prepare(
    messages: InputMessage[],
    format: MessageFormatName,
    model: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<ContextResponseBody> {
    await this.#flush(signal);
    if (messages.length > 0) {
      const json = JSON.stringify(messages);
      const previous = this.#unanswered;
      // The same messages as a call that got no answer: that call's retry, stored once.
      const idempotencyKey =
        previous?.format === format && previous.json === json
          ? previous.idempotencyKey
          : crypto.randomUUID();
      this.#unanswered = { format, json, idempotencyKey };
      await this.#session.append(messages, {
        format,
        ...(model !== undefined ? { model } : {}),
        idempotencyKey,
        ...(signal !== undefined ? { signal } : {}),
      });
    }
    return this.#session.context({ format, ...(signal !== undefined ? { signal } : {}) });
  }

  /** Sends `context`; on a provider error, lets the service decide whether compaction helps. */
  async #send<T>(
    format: MessageFormatName,
    context: ContextResponseBody,
    signal: AbortSignal | undefined,
    send: (messages: unknown[]) => Promise<T>,
  ): Promise<T> {
    const maxRecoveries = this.#options.maxRecoveries ?? 2;
    let current = context;
    let first: { error: unknown } | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = await send(current.messages);
        // Answered: the same messages in a later call are new ones.
        this.#unanswered = undefined;
        return answer;
      } catch (error) {
        if (signal?.aborted === true) throw error;
        first ??= { error };
        // No retry left: a compaction for it would be work (and summarizer calls) for nothing.
        if (attempt >= maxRecoveries) throw first.error;
        let recovered: ContextResponseBody & { passes: number };
        try {
          recovered = await this.#session.reportOverflow(error, {
            format,
            ...(signal !== undefined ? { signal } : {}),
          });
        } catch (reportError) {
          // Not an overflow: the error is the caller's to handle, exactly as the provider sent it.
          if (CondenseError.isInstance(reportError) && reportError.code === "not_an_overflow")
            throw error;
          throw first.error;
        }
        this.#options.onRecovery?.({
          attempt: attempt + 1,
          error,
          tokens: recovered.tokens,
          passes: recovered.passes,
        });
        current = recovered;
      }
    }
  }

  readonly chatCreate = async (
    body: ChatCompletionCreateParamsBase,
    requestOptions?: RequestOptions,
  ): Promise<ChatCompletion | Stream<ChatCompletionChunk>> => {
    const { messages, ...rest } = body;
    const signal = requestOptions?.signal ?? undefined;
    const model = this.#options.model ?? body.model;
    const context = await this.#prepare(messages.map(asInput), "openai", model, signal);
    const streaming = body.stream === true;
    const addUsage =
      streaming &&
      this.#options.streamUsage !== false &&
      body.stream_options?.include_usage !== true;
    const result = await this.#send("openai", context, signal, (sent) =>
      this.#chat.create(
        {
          ...rest,
          messages: sent as ChatCompletionMessageParam[],
          ...(addUsage ? { stream_options: { ...body.stream_options, include_usage: true } } : {}),
        },
        requestOptions,
      ),
    );

    if (!streaming) {
      const completion = result as ChatCompletion;
      const message = completion.choices[0]?.message;
      await this.#appendAnswer({
        messages: message === undefined ? [] : [assistantMessage(message)],
        format: "openai",
        model,
        inputTokens: completion.usage?.prompt_tokens,
      });
      return completion;
    }

    const stream = result as Stream<ChatCompletionChunk>;
    const assembler = new ChatStreamAssembler();
    const self = this;
    async function* passThrough(): AsyncGenerator<ChatCompletionChunk> {
      for await (const chunk of stream) {
        assembler.add(chunk);
        // The usage-only chunk the caller did not ask for.
        if (addUsage && chunk.choices.length === 0) continue;
        yield chunk;
      }
      // Only a complete answer is stored; a stream the caller abandoned never gets here.
      if (assembler.finished) {
        await self.#appendAnswer({
          messages: [asInput(assembler.message())],
          format: "openai",
          model,
          inputTokens: assembler.promptTokens,
        });
      }
    }
    const Wrapped = stream.constructor as StreamConstructor<ChatCompletionChunk>;
    return new Wrapped(() => passThrough(), stream.controller);
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
    const context = await this.#prepare(items, "responses", model, signal);
    const result = await this.#send("responses", context, signal, (sent) =>
      this.#responses.create({ ...rest, input: sent as ResponseInput }, requestOptions),
    );

    if (body.stream !== true) {
      const response = result as ResponsesResponse;
      await this.#appendAnswer({
        messages: storableOutput(response),
        format: "responses",
        model,
        inputTokens: response.usage?.input_tokens,
      });
      return response;
    }

    const stream = result as Stream<ResponseStreamEvent>;
    const self = this;
    async function* passThrough(): AsyncGenerator<ResponseStreamEvent> {
      let final: ResponsesResponse | undefined;
      for await (const event of stream) {
        if (event.type === "response.completed" || event.type === "response.incomplete") {
          final = event.response;
        }
        yield event;
      }
      if (final !== undefined) {
        await self.#appendAnswer({
          messages: storableOutput(final),
          format: "responses",
          model,
          inputTokens: final.usage?.input_tokens,
        });
      }
    }
    const Wrapped = stream.constructor as StreamConstructor<ResponseStreamEvent>;
    return new Wrapped(() => passThrough(), stream.controller);
  };
}

/**
 * Wraps an `openai` client so that `chat.completions.create` and `responses.create` run on a
 * Condense session (see the module comment). Everything else is the client as it was.
 *
 * ```ts
 * const ai = withCompaction(new OpenAI(), { session: condense.session("run-42") });
 * const reply = await ai.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: "Next step?" }] });
 * ```
 */
export function withCompaction<C extends OpenAI>(
  openai: C,
  options: WithCompactionOptions,
): CompactingOpenAI<C> {
  const compactor = new Compactor(openai, options);
  const completions = overlay(openai.chat.completions, { create: compactor.chatCreate });
  const chat = overlay(openai.chat, { completions });
  const responses = overlay(openai.responses, { create: compactor.responsesCreate });
  return overlay(openai, { chat, responses }) as unknown as CompactingOpenAI<C>;
}
