/**
 * @module ai-sdk/middleware
 * `condenseMiddleware({ session })`: a language-model middleware for the AI
 * SDK's `wrapLanguageModel`, so `generateText`, `streamText` and their
 * multi-step tool loops (`stopWhen`) run on a Condense session.
 *
 * - `transformParams` takes the session's turn lock, appends the prompt's
 *   messages the session does not have yet (`ai-sdk/overlap`: the AI SDK resends
 *   the whole history at every step), fetches the session's context and puts it
 *   in place of the prompt (`ai-sdk/to-canonical` and `ai-sdk/from-canonical` convert).
 * - `wrapGenerate` / `wrapStream` send it; an overflow error (classified by the
 *   service's `POST /overflow`) is recovered and the call sent again with the
 *   recovered context, at most twice (`conversation`). The answer (tool calls
 *   included; a stream passes through part by part and is appended when it
 *   finishes) is appended with the provider's `usage.inputTokens` (the total and the cache's
 *   reads and writes among it: the session's bill), and the lock
 *   is released. A stream cancelled by its reader stores nothing.
 *
 * What the session holds is learnt once per middleware: on its first call it
 * reads the session's transcript (when the session exists; page by page, a
 * request per 1,000 messages), then keeps track of what it appends. Contexts are
 * asked for with `providerData=true`, so every message comes with its thinking
 * blocks and error flag, which the prompt is rebuilt with.
 */

import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Middleware,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from "@ai-sdk/provider";
import type { InputMessage, UsageReport } from "../api-types.js";
import { Conversation, type ConversationOptions, type SessionContext } from "../conversation.js";
import { CondenseApiError } from "../errors.js";
import type { SessionLock } from "../session-lock.js";
import { aiSdkUsage } from "../usage/usage-report.js";
import type { ChatMessage } from "./canonical-message.js";
import { fromCanonical } from "./from-canonical.js";
import { canonicalKey, PromptMemory } from "./message-keys.js";
import { freshMessages } from "./overlap.js";
import { StreamAnswerAssembler } from "./stream.js";
import { answerToCanonical, toCanonical } from "./to-canonical.js";

/** Options of `condenseMiddleware`: the session, and what every integration takes. */
export type CondenseMiddlewareOptions = ConversationOptions;

/** What `transformParams` hands to `wrapGenerate` / `wrapStream` of the same call. */
interface PreparedCall {
  lock: SessionLock;
  context: SessionContext;
  model: string;
}

function isSystemKey(key: string): boolean {
  return key.startsWith('["system"');
}

class SessionMirror {
  readonly #conversation: Conversation;
  readonly #memory = new PromptMemory();
  /** Keys of the session's messages, oldest first, once read. */
  #known: string[] | undefined;

  constructor(conversation: Conversation) {
    this.#conversation = conversation;
  }

  get memory(): PromptMemory {
    return this.#memory;
  }

  async known(signal: AbortSignal | undefined): Promise<string[]> {
    if (this.#known !== undefined) return this.#known;
    const keys: string[] = [];
    try {
      for await (const entry of this.#conversation.session.transcriptEntries({
        limit: 1000,
        ...(signal !== undefined ? { signal } : {}),
      })) {
        keys.push(canonicalKey(entry.message as ChatMessage));
      }
    } catch (error) {
      if (!(CondenseApiError.isInstance(error) && error.code === "not_found")) throw error;
    }
    this.#known = keys;
    return keys;
  }

  /** Records messages the session now holds (or will, for an answer whose append is retried). */
  add(messages: readonly ChatMessage[]): void {
    this.#known?.push(...messages.map(canonicalKey));
  }
}

/**
 * A middleware for `wrapLanguageModel` that keeps the conversation in a Condense session.
 *
 * ```ts
 * const model = wrapLanguageModel({ model: openai("gpt-4o"), middleware: condenseMiddleware({ session }) });
 * const { text } = await generateText({ model, prompt: "Next step?" });
 * ```
 */
export function condenseMiddleware(options: CondenseMiddlewareOptions): LanguageModelV4Middleware {
  // The context keeps provider data (thinking signatures, error flags): the prompt is rebuilt from it.
  const conversation = new Conversation(options, { providerData: true });
  const mirror = new SessionMirror(conversation);
  const calls = new WeakMap<LanguageModelV4CallOptions, PreparedCall>();

  const toPrompt = (context: SessionContext) =>
    fromCanonical(context.messages as ChatMessage[], mirror.memory);

  async function appendAnswer(
    call: PreparedCall,
    content: readonly LanguageModelV4Content[],
    usage: UsageReport | undefined,
  ): Promise<void> {
    const canonical = answerToCanonical(content);
    for (const { message: item, original } of canonical) mirror.memory.remember(item, original);
    mirror.add(canonical.map(({ message: item }) => item));
    await conversation.appendAnswer({
      messages: canonical.map(({ message: item }): InputMessage => ({ ...item })),
      format: "openai",
      model: call.model,
      usage,
    });
  }

  /**
   * Sends the prepared call (`first`), and after an overflow the same call with the recovered
   * context as its prompt, straight to the wrapped model (`again`).
   */
  function send<T>(
    call: PreparedCall,
    params: LanguageModelV4CallOptions,
    first: () => PromiseLike<T>,
    again: (params: LanguageModelV4CallOptions) => PromiseLike<T>,
  ): Promise<T> {
    return conversation.send("openai", call.context, params.abortSignal, (sent) =>
      sent === call.context ? first() : again({ ...params, prompt: toPrompt(sent) }),
    );
  }

  return {
    specificationVersion: "v4",

    async transformParams({ params, model }) {
      const signal = params.abortSignal;
      const lock = await conversation.lock(signal);
      try {
        const known = await mirror.known(signal);
        const converted = params.prompt.flatMap((message) => toCanonical(message));
        for (const { message, original } of converted) mirror.memory.remember(message, original);
        const { fresh } = freshMessages(
          known,
          converted.map(({ message }) => ({
            key: canonicalKey(message),
            system: message.role === "system" || message.role === "developer",
          })),
          isSystemKey,
        );
        const appended = fresh.flatMap((index) => {
          const item = converted[index];
          return item === undefined ? [] : [item.message];
        });
        const name = options.model ?? model.modelId;
        const context = await conversation.prepare({
          messages: appended.map((message): InputMessage => ({ ...message })),
          format: "openai",
          model: name,
          signal,
        });
        mirror.add(appended);
        const transformed: LanguageModelV4CallOptions = { ...params, prompt: toPrompt(context) };
        calls.set(transformed, { lock, context, model: name });
        return transformed;
      } catch (error) {
        lock.release();
        throw error;
      }
    },

    async wrapGenerate({ doGenerate, params, model }): Promise<LanguageModelV4GenerateResult> {
      const call = calls.get(params);
      if (call === undefined) return doGenerate();
      try {
        const result = await send(call, params, doGenerate, (next) => model.doGenerate(next));
        await appendAnswer(call, result.content, aiSdkUsage(result.usage));
        return result;
      } finally {
        call.lock.release();
      }
    },

    async wrapStream({ doStream, params, model }): Promise<LanguageModelV4StreamResult> {
      const call = calls.get(params);
      if (call === undefined) return doStream();
      let handedOver = false;
      try {
        const result = await send(call, params, doStream, (next) => model.doStream(next));
        const reader = result.stream.getReader();
        const assembler = new StreamAnswerAssembler();
        // Pulled one part at a time, as the reader asks: nothing is read ahead or buffered.
        const stream = new ReadableStream<LanguageModelV4StreamPart>(
          {
            async pull(controller) {
              try {
                const next = await reader.read();
                if (next.done) {
                  if (assembler.finished)
                    await appendAnswer(call, assembler.content(), assembler.usage);
                  call.lock.release();
                  controller.close();
                  return;
                }
                assembler.add(next.value);
                controller.enqueue(next.value);
              } catch (error) {
                call.lock.release();
                controller.error(error);
              }
            },
            async cancel(reason) {
              call.lock.release();
              await reader.cancel(reason);
            },
          },
          { highWaterMark: 0 },
        );
        handedOver = true;
        return { ...result, stream };
      } finally {
        if (!handedOver) call.lock.release();
      }
    },
  };
}
