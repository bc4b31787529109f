/**
 * @module summary/llm/openai-transport
 * The HTTP side of the LLM summarizer: one Chat Completions call through the
 * official `openai` SDK, with a timeout per attempt, bounded retries with
 * backoff, and every failure turned into a `SummarizerError` with a kind
 * (timeout, rate_limited, server_error, network, truncated, malformed, …).
 * No Node built-ins: it runs in workerd.
 */

import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "openai";
import { VERSION } from "openai/version";
import { SummarizerError } from "../../errors/condense-error.js";
import { parseRetryAfter } from "../../errors/retry-after.js";
import { createSecretVault, redactSecrets } from "../redact.js";

export type ChatMessageParam = OpenAI.Chat.ChatCompletionMessageParam;

/**
 * How to reach an OpenAI-compatible chat model: what the summarizer and the memory flush are both
 * configured with (each states its own defaults).
 */
export interface OpenAIConnectionOptions {
  /** Sent as the bearer token; never logged. Servers that need none still need a placeholder here. */
  apiKey: string;
  /** Default: OpenAI. For compatible servers, e.g. `http://localhost:11434/v1`. */
  baseURL?: string;
  /** The model, e.g. `gpt-4o-mini`. */
  model: string;
  /**
   * Longest wait for the server, per attempt: for the response headers and,
   * when streaming, between two chunks (a slow but steady answer never times
   * out); without streaming, for the whole response. Default 60,000.
   */
  timeoutMs?: number;
  /** Retries after a timeout, 429, 5xx or dropped connection, with backoff. */
  maxRetries?: number;
  /** Extra headers for every request (e.g. OpenRouter's `HTTP-Referer`). */
  headers?: Record<string, string>;
  /** Tokens the model accepts. Default: from the model table (128k when unknown). */
  contextWindow?: number;
  /** A fetch implementation (tests, proxies, Worker service bindings). */
  fetch?: typeof globalThis.fetch;
  /** Stream the answer (SSE). Default true. */
  stream?: boolean;
  /** OpenAI's reasoning models want `max_completion_tokens`. Default `max_tokens`. */
  maxTokensParameter?: "max_tokens" | "max_completion_tokens";
  /** Sent only when set (some reasoning models reject it). */
  temperature?: number;
}

export interface TransportSettings {
  apiKey: string;
  baseURL: string | undefined;
  model: string;
  timeoutMs: number;
  maxRetries: number;
  headers: Record<string, string> | undefined;
  fetch: typeof globalThis.fetch | undefined;
  stream: boolean;
  maxTokensParameter: "max_tokens" | "max_completion_tokens";
  temperature: number | undefined;
}

/** A function call in an answer, its arguments as the raw JSON text the model wrote. */
export interface ToolCallAnswer {
  id: string;
  name: string;
  arguments: string;
}

/** What one call returned; checking it is the caller's business. */
export interface CallAnswer {
  content: string;
  refusal: string;
  finishReason: string | null;
  /** Function calls, in order (empty unless the request offered tools). */
  toolCalls: ToolCallAnswer[];
}

/** Tools offered with a call (the memory flush's); the summarizer offers none. */
export interface ToolOffer {
  tools: OpenAI.Chat.ChatCompletionTool[];
  toolChoice: "auto" | "required";
}

/** Calls and tokens sent, summed over every attempt of one `summarize`. */
export interface Tally {
  calls: number;
  inputTokens: number;
}

/** A 429 asking for a longer wait than this fails at once, so the engine can cool down instead of blocking. */
export const MAX_RETRY_AFTER_MS = 20_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

/** A failed attempt and whether another attempt may help. */
class AttemptFailure extends Error {
  constructor(
    readonly failure: SummarizerError,
    readonly retryable: boolean,
    /** What the server asked us to wait, in ms. */
    readonly retryAfterMs: number | undefined,
  ) {
    super(failure.message);
  }
}

export function abortedError(): SummarizerError {
  return new SummarizerError("aborted", "summarization was aborted by the caller's signal");
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError());
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The function calls of a non-streaming message, read defensively; anything unreadable is left out. */
function readToolCalls(value: unknown): ToolCallAnswer[] {
  if (!Array.isArray(value)) return [];
  const calls: ToolCallAnswer[] = [];
  for (const item of value) {
    if (typeof item !== "object" || item === null) continue;
    const fn: unknown = "function" in item ? item.function : undefined;
    if (typeof fn !== "object" || fn === null) continue;
    const name = "name" in fn && typeof fn.name === "string" ? fn.name : "";
    const args = "arguments" in fn && typeof fn.arguments === "string" ? fn.arguments : "";
    const id = "id" in item && typeof item.id === "string" ? item.id : "";
    calls.push({ id, name, arguments: args });
  }
  return calls;
}

export class OpenAITransport {
  private readonly client: OpenAI;

  constructor(private readonly settings: TransportSettings) {
    this.client = new OpenAI({
      apiKey: settings.apiKey,
      baseURL: settings.baseURL,
      // Our own loop retries, so the timeout covers every attempt and a long retry-after fails fast.
      maxRetries: 0,
      timeout: settings.timeoutMs,
      // The SDK names itself by its class's `name`, which a minifier without keep-names (the
      // Worker's build) renames: "q/JS 7.57.0". Its own header, spelled out; the caller's still win.
      defaultHeaders: { "User-Agent": `OpenAI/JS ${VERSION}`, ...settings.headers },
      fetch: settings.fetch,
      // Workers look like a browser to the SDK; the key stays server-side here.
      dangerouslyAllowBrowser: true,
      // The SDK's logger could print request details; nothing is logged.
      logLevel: "off",
    });
  }

  /** Text fit to show in an error: the key and anything secret-looking removed. */
  sanitize(text: string): string {
    return redactSecrets(text.split(this.settings.apiKey).join("[api key]"), createSecretVault());
  }

  /**
   * One call with retries: timeouts, 429s (unless the wait asked for is long),
   * 5xx, dropped connections and broken streams are retried with exponential
   * backoff (or the server's retry-after), up to `maxRetries` times.
   */
  async call(
    messages: ChatMessageParam[],
    maxOutput: number,
    estimatedTokens: number,
    signal: AbortSignal | undefined,
    tally: Tally,
    offer?: ToolOffer,
  ): Promise<CallAnswer> {
    for (let retry = 0; ; retry += 1) {
      try {
        return await this.attempt(messages, maxOutput, estimatedTokens, signal, tally, offer);
      } catch (error) {
        const failure = this.classify(error, signal, false);
        if (!failure.retryable || retry >= this.settings.maxRetries) throw failure.failure;
        if (failure.retryAfterMs !== undefined && failure.retryAfterMs > MAX_RETRY_AFTER_MS) {
          throw failure.failure;
        }
        const backoff =
          Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** retry) * (0.75 + Math.random() * 0.25);
        await delay(failure.retryAfterMs ?? backoff, signal);
      }
    }
  }

  /** One request and its answer. The timer covers the wait for headers and, when streaming, each gap between chunks. */
  private async attempt(
    messages: ChatMessageParam[],
    maxOutput: number,
    estimatedTokens: number,
    signal: AbortSignal | undefined,
    tally: Tally,
    offer: ToolOffer | undefined,
  ): Promise<CallAnswer> {
    const { model, timeoutMs, maxTokensParameter, temperature } = this.settings;
    const controller = new AbortController();
    let timedOut = false;
    const onAbort = () => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
    };
    arm();
    tally.calls += 1;
    let promptTokens: number | undefined;
    const body = {
      model,
      messages,
      [maxTokensParameter]: maxOutput,
      ...(temperature === undefined ? {} : { temperature }),
      ...(offer === undefined ? {} : { tools: offer.tools, tool_choice: offer.toolChoice }),
    };
    try {
      if (!this.settings.stream) {
        const completion: unknown = await this.client.chat.completions.create(
          { ...body, stream: false },
          { signal: controller.signal },
        );
        const answer = this.readCompletion(completion);
        promptTokens = answer.promptTokens;
        return answer;
      }
      const chunks = await this.client.chat.completions.create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { signal: controller.signal },
      );
      let content = "";
      let refusal = "";
      let finishReason: string | null = null;
      // Streamed calls arrive in pieces keyed by their index: id and name first, then the arguments.
      const calls = new Map<number, ToolCallAnswer>();
      try {
        for await (const chunk of chunks) {
          arm();
          const choice = chunk.choices?.[0];
          for (const piece of choice?.delta?.tool_calls ?? []) {
            const call = calls.get(piece.index) ?? { id: "", name: "", arguments: "" };
            if (piece.id) call.id = piece.id;
            if (piece.function?.name) call.name += piece.function.name;
            if (piece.function?.arguments) call.arguments += piece.function.arguments;
            calls.set(piece.index, call);
          }
          if (choice?.delta?.content) content += choice.delta.content;
          if (choice?.delta?.refusal) refusal += choice.delta.refusal;
          if (choice?.finish_reason) finishReason = choice.finish_reason;
          if (typeof chunk.usage?.prompt_tokens === "number")
            promptTokens = chunk.usage.prompt_tokens;
        }
      } catch (error) {
        if (
          error instanceof APIError ||
          error instanceof SyntaxError ||
          signal?.aborted ||
          timedOut
        )
          throw error;
        // The connection dropped mid-answer: worth another attempt.
        throw new AttemptFailure(
          new SummarizerError(
            "truncated",
            `the summarizer (${model}) stream broke off before the answer ended`,
            {
              cause: error,
            },
          ),
          true,
          undefined,
        );
      }
      // The SDK ends the iteration quietly when the request is aborted.
      if (signal?.aborted) throw abortedError();
      if (timedOut) throw new APIConnectionTimeoutError();
      if (finishReason === null) {
        throw new AttemptFailure(
          new SummarizerError(
            "truncated",
            `the summarizer (${model}) stream ended without a finish reason`,
          ),
          true,
          undefined,
        );
      }
      const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
      return { content, refusal, finishReason, toolCalls };
    } catch (error) {
      throw this.classify(error, signal, timedOut);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      tally.inputTokens += promptTokens ?? estimatedTokens;
    }
  }

  private failure(
    kind: ConstructorParameters<typeof SummarizerError>[0],
    message: string,
    retryable: boolean,
    options: { cause?: unknown; retryAfterMs?: number | undefined } = {},
  ): AttemptFailure {
    const { cause, retryAfterMs } = options;
    // The error says it in seconds, as its `retryAfter` always has.
    const timing = retryAfterMs === undefined ? {} : { retryAfter: retryAfterMs / 1000 };
    return new AttemptFailure(
      new SummarizerError(kind, message, { cause, ...timing }),
      retryable,
      retryAfterMs,
    );
  }

  private classify(
    error: unknown,
    signal: AbortSignal | undefined,
    timedOut: boolean,
  ): AttemptFailure {
    const { model, timeoutMs } = this.settings;
    if (error instanceof AttemptFailure) return error;
    if (SummarizerError.isInstance(error)) return new AttemptFailure(error, false, undefined);
    if (signal?.aborted) return new AttemptFailure(abortedError(), false, undefined);
    if (timedOut || error instanceof APIConnectionTimeoutError) {
      return this.failure(
        "timeout",
        `the summarizer (${model}) did not answer within ${timeoutMs} ms`,
        true,
      );
    }
    if (error instanceof APIUserAbortError)
      return new AttemptFailure(abortedError(), false, undefined);
    if (error instanceof APIConnectionError) {
      return this.failure(
        "network",
        `could not reach the summarizer at ${this.sanitize(this.client.baseURL)}: ${this.sanitize(error.message)}; check baseURL and the network`,
        true,
        { cause: error },
      );
    }
    if (error instanceof APIError) {
      const status = error.status ?? 0;
      const detail = this.sanitize(error.message);
      const retryAfterMs = parseRetryAfter(error.headers);
      if (status === 429) {
        return this.failure(
          "rate_limited",
          `the summarizer (${model}) is rate limited (429): ${detail}`,
          true,
          {
            cause: error,
            retryAfterMs,
          },
        );
      }
      if (status === 408) {
        return this.failure(
          "timeout",
          `the summarizer (${model}) timed out (408): ${detail}`,
          true,
          { cause: error },
        );
      }
      if (status >= 500) {
        return this.failure(
          "server_error",
          `the summarizer (${model}) failed with ${status}: ${detail}`,
          true,
          {
            cause: error,
            retryAfterMs,
          },
        );
      }
      const hint =
        status === 401 || status === 403
          ? "; check apiKey"
          : status === 404
            ? "; check baseURL and model"
            : status === 400
              ? "; the server rejected the request (model, contextWindow, maxOutputTokens or maxTokensParameter may be wrong)"
              : "";
      return this.failure(
        "other",
        `the summarizer (${model}) answered ${status}: ${detail}${hint}`,
        false,
        {
          cause: error,
        },
      );
    }
    if (error instanceof SyntaxError) {
      return this.failure(
        "malformed",
        `the summarizer (${model}) sent a response that is not valid JSON`,
        false,
        {
          cause: error,
        },
      );
    }
    const message = error instanceof Error ? this.sanitize(error.message) : String(error);
    return this.failure("other", `the summarizer (${model}) failed: ${message}`, false, {
      cause: error,
    });
  }

  private malformed(reason: string): AttemptFailure {
    return this.failure(
      "malformed",
      `the summarizer (${this.settings.model}) sent an unusable response: ${reason}`,
      false,
    );
  }

  /** Reads a non-streaming completion defensively: servers that claim compatibility differ. */
  private readCompletion(completion: unknown): CallAnswer & { promptTokens: number | undefined } {
    if (typeof completion !== "object" || completion === null || !("choices" in completion)) {
      throw this.malformed("no `choices` in the response body");
    }
    const choices = completion.choices;
    const first: unknown = Array.isArray(choices) ? choices[0] : undefined;
    if (typeof first !== "object" || first === null || !("message" in first)) {
      throw this.malformed("no `choices[0].message` in the response body");
    }
    const message = first.message;
    if (typeof message !== "object" || message === null) {
      throw this.malformed("`choices[0].message` is not an object");
    }
    const content = "content" in message ? message.content : null;
    const refusal = "refusal" in message ? message.refusal : null;
    if (content !== null && content !== undefined && typeof content !== "string") {
      throw this.malformed("`choices[0].message.content` is not a string");
    }
    const finishReason =
      "finish_reason" in first && typeof first.finish_reason === "string"
        ? first.finish_reason
        : null;
    let promptTokens: number | undefined;
    if (
      "usage" in completion &&
      typeof completion.usage === "object" &&
      completion.usage !== null
    ) {
      const usage = completion.usage;
      if ("prompt_tokens" in usage && typeof usage.prompt_tokens === "number")
        promptTokens = usage.prompt_tokens;
    }
    return {
      content: content ?? "",
      refusal: typeof refusal === "string" ? refusal : "",
      finishReason,
      toolCalls: "tool_calls" in message ? readToolCalls(message.tool_calls) : [],
      promptTokens,
    };
  }
}
