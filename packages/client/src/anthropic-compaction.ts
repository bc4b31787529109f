/**
 * @module anthropic-compaction
 * `withCompaction` for an Anthropic client (`@anthropic-ai/sdk`):
 * `messages.create` (streamed or not) and `messages.stream` keep their
 * conversation in a Condense session (the steps are `conversation`'s). The
 * caller passes what is new each call (the user's turn, a turn of
 * `tool_result` blocks) and `system` as usual; the session stores canonical
 * messages, converted by the service (`format=anthropic`) on append and on
 * context, so the model gets the session's `system` and turns in their place.
 *
 * - `system` is appended when it differs from the one the session already has
 *   (the first call of a wrapper reads the session's to know), not on every call.
 * - The answer's text, `tool_use`, `thinking` and `redacted_thinking` blocks are
 *   appended; thinking blocks keep their signature and come back unmodified, as
 *   Anthropic requires within a tool loop. Server-tool blocks (web search, code
 *   execution results) are not stored.
 * - Overflow errors (`prompt is too long`, 413 `request_too_large`) are
 *   classified by the service's `POST /overflow`, like every provider's.
 */

import type Anthropic from "@anthropic-ai/sdk";
import type {
  Message,
  MessageCreateParamsBase,
  MessageParam,
  MessageStreamParams,
  RawMessageStreamEvent,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { Stream } from "@anthropic-ai/sdk/streaming";
import { AnthropicStreamAssembler, assistantTurn } from "./anthropic-stream.js";
import type { InputMessage, UsageReport } from "./api-types.js";
import { Conversation, type ConversationOptions } from "./conversation.js";
import { CondenseApiError } from "./errors.js";
import { overlay } from "./overlay.js";
import { type StreamingCreate, watchStream } from "./sdk-stream.js";
import { anthropicUsage } from "./usage/usage-report.js";

type Messages = Anthropic["messages"];
type RequestOptions = Parameters<Messages["create"]>[1];
type MessageStream = ReturnType<Messages["stream"]>;

export type AnthropicCompactionOptions = ConversationOptions;

/** `messages` with a compacting `create` and `stream`. */
export interface CompactingMessages {
  create: StreamingCreate<
    MessageCreateParamsBase,
    Message,
    Stream<RawMessageStreamEvent>,
    RequestOptions
  >;
  /** The SDK's own `messages.stream`, typed as the SDK types it. */
  stream: Messages["stream"];
}

/** The wrapped client: everything of `C`, with `messages.create` and `messages.stream` replaced. */
export type CompactingAnthropic<C extends Anthropic> = Omit<C, "messages"> & {
  messages: Omit<C["messages"], "create" | "stream"> & CompactingMessages;
};

/** What `create(…).withResponse()` resolves to; `messages.stream` reads the response's headers. */
interface WithResponse<T> {
  data: T;
  response: Response;
  request_id: string | null | undefined;
}

function asInput(message: MessageParam): InputMessage {
  return { ...message };
}

class AnthropicCompactor {
  readonly #messages: Messages;
  readonly #options: AnthropicCompactionOptions;
  readonly #conversation: Conversation;
  /** JSON of the `system` the session holds, once known. */
  #sessionSystem: string | undefined;

  constructor(anthropic: Anthropic, options: AnthropicCompactionOptions) {
    this.#messages = anthropic.messages;
    this.#options = options;
    this.#conversation = new Conversation(options);
  }

  /** The session's current `system` (JSON), read once per wrapper; `null` for a new session. */
  async #knownSystem(signal: AbortSignal | undefined): Promise<string> {
    if (this.#sessionSystem !== undefined) return this.#sessionSystem;
    try {
      const context = await this.#conversation.session.context({
        format: "anthropic",
        ...(signal !== undefined ? { signal } : {}),
      });
      this.#sessionSystem = JSON.stringify(context.system ?? null);
    } catch (error) {
      if (!(CondenseApiError.isInstance(error) && error.code === "not_found")) throw error;
      this.#sessionSystem = "null";
    }
    return this.#sessionSystem;
  }

  /** Runs one call and resolves with the SDK's answer and its HTTP response. */
  readonly createWithResponse = (
    body: MessageCreateParamsBase,
    requestOptions?: RequestOptions,
  ): Promise<WithResponse<Message | Stream<RawMessageStreamEvent>>> => {
    const { messages, system, ...rest } = body;
    const signal = requestOptions?.signal ?? undefined;
    const model = this.#options.model ?? body.model;
    const conversation = this.#conversation;
    return conversation.turn(signal, async (handOver) => {
      let newSystem: unknown;
      if (system !== undefined) {
        const json = JSON.stringify(system);
        if ((await this.#knownSystem(signal)) !== json) newSystem = system;
      }
      const context = await conversation.prepare({
        messages: messages.map(asInput),
        format: "anthropic",
        model,
        signal,
        ...(newSystem !== undefined ? { system: newSystem } : {}),
      });
      if (newSystem !== undefined) this.#sessionSystem = JSON.stringify(context.system ?? null);
      const result = await conversation.send("anthropic", context, signal, (sent) =>
        this.#messages
          .create(
            {
              ...rest,
              ...(sent.system !== undefined && sent.system !== null
                ? { system: sent.system as MessageCreateParamsBase["system"] }
                : {}),
              messages: sent.messages as MessageParam[],
            },
            requestOptions,
          )
          .withResponse(),
      );
      const append = (messages: InputMessage[], usage: UsageReport | undefined) =>
        conversation.appendAnswer({ messages, format: "anthropic", model, usage });

      if (body.stream !== true) {
        const message = result.data as Message;
        await append(assistantTurn(message.content), anthropicUsage(message.usage));
        return result;
      }

      const assembler = new AnthropicStreamAssembler();
      const data = watchStream(
        result.data as Stream<RawMessageStreamEvent>,
        handOver(),
        (event) => {
          assembler.add(event);
          return true;
        },
        async () => {
          // Only a complete answer is stored; a stream the caller abandoned never gets here.
          if (assembler.finished) await append(assembler.turn(), assembler.usage);
        },
      );
      return { ...result, data };
    });
  };

  readonly create = async (
    body: MessageCreateParamsBase,
    requestOptions?: RequestOptions,
  ): Promise<Message | Stream<RawMessageStreamEvent>> =>
    (await this.createWithResponse(body, requestOptions)).data;

  /**
   * `messages.stream` is the SDK's own `MessageStream` (events, `finalMessage()`, …) over this
   * wrapper's `create`: the SDK's `stream` is called on a view of `messages` whose `create`
   * is the compacting one.
   */
  readonly stream = (body: MessageStreamParams, requestOptions?: RequestOptions): MessageStream => {
    const createWithResponse = this.createWithResponse;
    const compacting = overlay(this.#messages, {
      create: (params: MessageCreateParamsBase, options?: RequestOptions) => ({
        withResponse: () => createWithResponse(params, options),
      }),
    });
    const stream = this.#messages.stream as unknown as (
      this: Messages,
      body: MessageStreamParams,
      options?: RequestOptions,
    ) => MessageStream;
    return stream.call(compacting, body, requestOptions);
  };
}

/**
 * Wraps an Anthropic client so that `messages.create` and `messages.stream` run on a Condense
 * session (see the module comment). Everything else is the client as it was.
 */
export function withAnthropicCompaction<C extends Anthropic>(
  anthropic: C,
  options: AnthropicCompactionOptions,
): CompactingAnthropic<C> {
  const compactor = new AnthropicCompactor(anthropic, options);
  const messages = overlay(anthropic.messages, {
    create: compactor.create,
    stream: compactor.stream,
  });
  return overlay(anthropic, { messages }) as unknown as CompactingAnthropic<C>;
}
