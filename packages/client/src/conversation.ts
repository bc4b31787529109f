/**
 * @module conversation
 * What every integration (`withCompaction` for `openai` and Anthropic,
 * `condenseMiddleware` for the AI SDK) does with a session around one model
 * call, whatever the provider's protocol:
 *
 * 1. take the session's turn lock (calls on one session run one at a time);
 * 2. append the caller's new messages, then fetch the session's context;
 * 3. send it; on an error, report it to `POST /overflow`: if the service
 *    recognises a context overflow it compacts and returns a smaller context,
 *    which is sent again (at most `maxRecoveries` times; the error after the last
 *    retry is not reported, and the first error is thrown); if not (422
 *    `not_an_overflow`) the error is thrown as it is;
 * 4. append the model's answer with the prompt tokens the provider reported,
 *    which calibrate the session's estimates; release the lock.
 *
 * An answer whose append fails is kept and appended before anything else on the
 * next call, so the session never silently loses a turn. A call that failed
 * after its messages were appended (a rate limit, a lost connection) may be
 * repeated with the same messages: the repeat reuses the first append's
 * `Idempotency-Key`, so they are stored once.
 */

import type {
  ContextResponseBody,
  InputMessage,
  MessageFormatName,
  OverflowResponseBody,
  UsageReport,
} from "./api-types.js";
import { CondenseApiError } from "./errors.js";
import type { SessionHandle } from "./session.js";
import type { SessionLock } from "./session-lock.js";

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

/** Options every integration takes. */
export interface ConversationOptions {
  /** The session that holds the conversation. */
  session: SessionHandle;
  /**
   * The model name the session counts tokens for.
   * @default the request's model
   */
  model?: string;
  /**
   * Overflow recoveries per call before the provider's first error is thrown.
   * @default 2
   */
  maxRecoveries?: number;
  /** Called after each overflow recovery, before the request is sent again. */
  onRecovery?: (event: RecoveryEvent) => void;
  /**
   * Called with each context the service serves before it is sent to the model (its `tokens`,
   * `warningLevel`, `coveredSeq`, …), and with the recovered one after an overflow.
   */
  onContext?: (context: ContextResponseBody) => void;
  /**
   * Called when the model's answer could not be appended (the service was unreachable). The answer
   * is kept and appended first on the next call; by default nothing else happens.
   */
  onAppendError?: (error: unknown) => void;
}

/**
 * An answer to append: the model's messages in `format`, with the usage the provider reported for
 * its prompt (every input token, and the cache's reads and writes among them: the session's bill).
 */
export interface AnswerAppend {
  messages: InputMessage[];
  format: MessageFormatName;
  model: string | undefined;
  usage: UsageReport | undefined;
}

interface PendingAppend extends AnswerAppend {
  idempotencyKey: string;
}

/** The caller's messages of a call that got no answer yet, and the key they were appended with. */
interface UnansweredInput {
  format: MessageFormatName;
  json: string;
  idempotencyKey: string;
}

/** The context of an Anthropic-format answer: its `system` comes apart from the messages. */
export type SessionContext = Pick<ContextResponseBody, "messages" | "system" | "tokens">;

export class Conversation {
  readonly options: ConversationOptions;
  readonly #pending: PendingAppend[] = [];
  #unanswered: UnansweredInput | undefined;
  /** Whether contexts keep `provider_data` in the openai format (for an integration that reads it). */
  readonly #providerData: boolean;

  constructor(options: ConversationOptions, context: { providerData?: boolean } = {}) {
    this.options = options;
    this.#providerData = context.providerData === true;
  }

  get session(): SessionHandle {
    return this.options.session;
  }

  /** Waits for the session's turn (see `session-lock`). */
  lock(signal: AbortSignal | undefined): Promise<SessionLock> {
    return this.session.lock(signal === undefined ? {} : { signal });
  }

  /**
   * Runs one model call holding the session's turn lock, given back when `call` settles, unless
   * `call` takes it (`handOver`) for the stream it returns, which gives it back when it ends.
   */
  async turn<T>(
    signal: AbortSignal | undefined,
    call: (handOver: () => SessionLock) => Promise<T>,
  ): Promise<T> {
    const lock = await this.lock(signal);
    let handedOver = false;
    try {
      return await call(() => {
        handedOver = true;
        return lock;
      });
    } finally {
      if (!handedOver) lock.release();
    }
  }

  /** Appends answers that could not be appended earlier, in order, with their original keys. */
  async flush(signal: AbortSignal | undefined): Promise<void> {
    while (this.#pending.length > 0) {
      const next = this.#pending[0];
      if (next === undefined) break;
      await this.session.append(next.messages, {
        format: next.format,
        ...(next.model !== undefined ? { model: next.model } : {}),
        ...(next.usage !== undefined ? { usage: next.usage } : {}),
        idempotencyKey: next.idempotencyKey,
        ...(signal !== undefined ? { signal } : {}),
      });
      this.#pending.shift();
    }
  }

  /** Appends the model's answer; a failure is reported to `onAppendError` and retried next call. */
  async appendAnswer(entry: AnswerAppend): Promise<void> {
    if (entry.messages.length === 0) return;
    this.#pending.push({ ...entry, idempotencyKey: crypto.randomUUID() });
    try {
      await this.flush(undefined);
    } catch (error) {
      this.options.onAppendError?.(error);
    }
  }

  /**
   * Appends the caller's new messages (after any answer still pending) and returns the
   * context to send, in `format`.
   */
  async prepare(input: {
    messages: InputMessage[];
    format: MessageFormatName;
    model: string | undefined;
    signal: AbortSignal | undefined;
    system?: unknown;
  }): Promise<ContextResponseBody> {
    const { messages, format, model, signal, system } = input;
    await this.flush(signal);
    if (messages.length > 0 || system !== undefined) {
      const json = JSON.stringify([system ?? null, messages]);
      const previous = this.#unanswered;
      // The same messages as a call that got no answer: that call's retry, stored once.
      const idempotencyKey =
        previous?.format === format && previous.json === json
          ? previous.idempotencyKey
          : crypto.randomUUID();
      this.#unanswered = { format, json, idempotencyKey };
      await this.session.append(messages, {
        format,
        ...(system !== undefined ? { system } : {}),
        ...(model !== undefined ? { model } : {}),
        idempotencyKey,
        ...(signal !== undefined ? { signal } : {}),
      });
    }
    const context = await this.session.context({
      format,
      ...(this.#providerData ? { providerData: true } : {}),
      ...(signal !== undefined ? { signal } : {}),
    });
    this.options.onContext?.(context);
    return context;
  }

  /** Sends `context`; on a provider error, lets the service decide whether compaction helps. */
  async send<T>(
    format: MessageFormatName,
    context: SessionContext,
    signal: AbortSignal | undefined,
    send: (context: SessionContext) => PromiseLike<T>,
  ): Promise<T> {
    const maxRecoveries = this.options.maxRecoveries ?? 2;
    let current = context;
    let first: { error: unknown } | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = await send(current);
        // Answered: the same messages in a later call are new ones.
        this.#unanswered = undefined;
        return answer;
      } catch (error) {
        if (signal?.aborted === true) throw error;
        first ??= { error };
        // No retry left: a compaction for it would be work (and summarizer calls) for nothing.
        if (attempt >= maxRecoveries) throw first.error;
        let recovered: OverflowResponseBody;
        try {
          recovered = await this.session.reportOverflow(error, {
            format,
            ...(this.#providerData ? { providerData: true } : {}),
            ...(signal !== undefined ? { signal } : {}),
          });
        } catch (reportError) {
          // Not an overflow: the error is the caller's to handle, exactly as the provider sent it.
          if (CondenseApiError.isInstance(reportError) && reportError.code === "not_an_overflow")
            throw error;
          throw first.error;
        }
        this.options.onRecovery?.({
          attempt: attempt + 1,
          error,
          tokens: recovered.tokens,
          passes: recovered.passes,
        });
        this.options.onContext?.(recovered);
        current = recovered;
      }
    }
  }
}
