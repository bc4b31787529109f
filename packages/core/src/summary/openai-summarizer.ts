/**
 * @module summary/openai-summarizer
 * An LLM summarizer on the official `openai` SDK (Chat Completions), so it
 * works with OpenAI and every OpenAI-compatible server (vLLM, Ollama,
 * llama.cpp, OpenRouter, Together, Groq, Workers AI). No Node built-ins: it
 * runs in workerd.
 *
 * One `summarize` call: secrets are redacted, the messages are rendered as a
 * transcript (tool output fenced as untrusted, reasoning dropped, each message
 * capped), and then either one call (the range fits the summarizer's own
 * window) or one call per chunk followed by a merge. A `previousSummary` is
 * updated, not summarized again. The answer is checked (refusal, empty,
 * truncated, required sections, size), secrets are restored, and the ledger is
 * verified by code: whatever identifier or file the summary misses is
 * appended. Every failure is a `SummarizerError` whose `kind` says what went
 * wrong, so the engine can fall to the next tier.
 */

import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "openai";
import { InvalidOptionsError, SummarizerError } from "../errors/condense-error.js";
import { contextWindowFor } from "../models/context-window.js";
import { countTokens } from "../tokens/count.js";
import {
  chunkTokenLimit,
  joinGroups,
  packChunks,
  type RenderedGroup,
  renderGroups,
  squeezeGroup,
  stripInlineReasoning,
} from "./chunk.js";
import { appendMissingIdentifiers, missingIdentifiers } from "./ledger.js";
import {
  chunkPrompt,
  mergePrompt,
  missingSectionsPrompt,
  type PromptSteering,
  renderLedger,
  summarizePrompt,
  systemPrompt,
  updatePrompt,
} from "./prompt.js";
import { createSecretVault, redactSecrets, restoreSecrets, type SecretVault } from "./redact.js";
import type { SummarizeRequest, SummarizeResult, Summarizer } from "./summarizer.js";
import { missingSections, REQUIRED_SECTIONS } from "./template.js";

export interface OpenAISummarizerOptions {
  /** Sent as the bearer token; never logged. Servers that need none still need a placeholder here. */
  apiKey: string;
  /** Default: OpenAI. For compatible servers, e.g. `http://localhost:11434/v1`. */
  baseURL?: string;
  /** The summarizer model, e.g. `gpt-4o-mini`. */
  model: string;
  /**
   * Longest wait for the server, per attempt: for the response headers and,
   * when streaming, between two chunks (a slow but steady answer never times
   * out); without streaming, for the whole response. Default 60,000.
   */
  timeoutMs?: number;
  /** Retries after a timeout, 429, 5xx or dropped connection, with backoff. Default 2. */
  maxRetries?: number;
  /** Extra headers for every request (e.g. OpenRouter's `HTTP-Referer`). */
  headers?: Record<string, string>;
  /** Tokens the summarizer model accepts. Default: from the model table. */
  contextWindow?: number;
  /** A fetch implementation (tests, proxies, Worker service bindings). */
  fetch?: typeof globalThis.fetch;
  /** Stream the answer (SSE). Default true. */
  stream?: boolean;
  /** OpenAI's reasoning models want `max_completion_tokens`. Default `max_tokens`. */
  maxTokensParameter?: "max_tokens" | "max_completion_tokens";
  /** Sent only when set (some reasoning models reject it). */
  temperature?: number;
  /** Chunk summaries written at the same time. Default 4. */
  concurrency?: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_CONCURRENCY = 4;
/** A 429 asking for a longer wait than this fails at once, so the engine can cool down instead of blocking. */
const MAX_RETRY_AFTER_MS = 20_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;
/** Share of the window kept free for tokenizer differences between our count and the server's. */
const WINDOW_MARGIN = 0.05;
/** The summary may exceed `maxTokens` by this share before it counts as too large (tokenizers differ). */
const SIZE_TOLERANCE = 1.1;
const MIN_OUTPUT_TOKENS = 256;
/** The template alone takes ~100 tokens: a summary this small is never "larger than its input". */
const SMALL_SUMMARY_TOKENS = 512;
/** Chunk summaries: about this share of their chunk, within bounds. */
const CHUNK_SUMMARY_SHARE = 0.25;
const CHUNK_SUMMARY_MIN = 400;
const CHUNK_SUMMARY_MAX = 4_000;

type ChatMessageParam = OpenAI.Chat.ChatCompletionMessageParam;

interface CallAnswer {
  content: string;
  refusal: string;
  finishReason: string | null;
}

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

function positiveNumber(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new InvalidOptionsError(name, `expected a number > 0, got ${JSON.stringify(value)}`);
  }
  return value;
}

function nonNegativeInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new InvalidOptionsError(
      name,
      `expected a whole number ≥ 0, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** Seconds from a `retry-after` (seconds or HTTP date) or `retry-after-ms` header. */
export function parseRetryAfter(
  headers: Headers | undefined,
  now: number = Date.now(),
): number | undefined {
  const millis = headers?.get("retry-after-ms");
  if (millis !== null && millis !== undefined && millis.trim() !== "") {
    const value = Number(millis);
    if (Number.isFinite(value) && value >= 0) return value / 1000;
  }
  const header = headers?.get("retry-after");
  if (header === null || header === undefined || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(header);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - now) / 1000);
}

const refusalStart =
  /^\s*(?:I['’]m sorry|I am sorry|sorry\b|I apologi[sz]e|I can(?:no|['’])t\b|I cannot\b|I won['’]t\b|I will not\b|I['’]m (?:not able|unable)\b|I am (?:not able|unable)\b|As an AI\b)/i;

/** A refusal written as text instead of the refusal field. */
export function looksLikeRefusal(text: string): boolean {
  return (
    refusalStart.test(text.slice(0, 300)) &&
    missingSections(text).length === REQUIRED_SECTIONS.length
  );
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new SummarizerError("aborted", "summarization was aborted by the caller's signal"));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(new SummarizerError("aborted", "summarization was aborted by the caller's signal"));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function abortedError(): SummarizerError {
  return new SummarizerError("aborted", "summarization was aborted by the caller's signal");
}

/** Builds an LLM summarizer that talks to an OpenAI-compatible Chat Completions endpoint. */
export function openAISummarizer(options: OpenAISummarizerOptions): Summarizer {
  if (typeof options.model !== "string" || options.model.trim() === "") {
    throw new InvalidOptionsError(
      "model",
      "expected the summarizer model name, e.g. `gpt-4o-mini`",
    );
  }
  if (typeof options.apiKey !== "string" || options.apiKey === "") {
    throw new InvalidOptionsError(
      "apiKey",
      "expected a non-empty string; for a server that needs no key, pass any placeholder such as `none`",
    );
  }
  const model = options.model;
  const apiKey = options.apiKey;
  const timeoutMs = positiveNumber("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS);
  const maxRetries = nonNegativeInteger("maxRetries", options.maxRetries, DEFAULT_MAX_RETRIES);
  const concurrency = Math.max(
    1,
    nonNegativeInteger("concurrency", options.concurrency, DEFAULT_CONCURRENCY),
  );
  const window =
    options.contextWindow === undefined
      ? contextWindowFor(model)
      : Math.floor(positiveNumber("contextWindow", options.contextWindow, 0));
  const stream = options.stream ?? true;
  const maxTokensParameter = options.maxTokensParameter ?? "max_tokens";

  const client = new OpenAI({
    apiKey,
    baseURL: options.baseURL,
    // Our own loop retries, so that timeouts cover every attempt and a long retry-after fails fast.
    maxRetries: 0,
    timeout: timeoutMs,
    defaultHeaders: options.headers,
    fetch: options.fetch,
    // Workers look like a browser to the SDK; the key stays server-side here.
    dangerouslyAllowBrowser: true,
    // The SDK's logger could print request details; nothing is logged.
    logLevel: "off",
  });

  /** Error text as it may be shown: the key and anything secret-looking removed. */
  function sanitize(text: string): string {
    return redactSecrets(text.split(apiKey).join("[api key]"), createSecretVault());
  }

  function classify(
    error: unknown,
    signal: AbortSignal | undefined,
    timedOut: boolean,
  ): AttemptFailure {
    if (error instanceof AttemptFailure) return error;
    if (SummarizerError.isInstance(error)) return new AttemptFailure(error, false, undefined);
    if (signal?.aborted) return new AttemptFailure(abortedError(), false, undefined);
    if (timedOut || error instanceof APIConnectionTimeoutError) {
      return new AttemptFailure(
        new SummarizerError(
          "timeout",
          `the summarizer (${model}) did not answer within ${timeoutMs} ms`,
        ),
        true,
        undefined,
      );
    }
    if (error instanceof APIUserAbortError)
      return new AttemptFailure(abortedError(), false, undefined);
    if (error instanceof APIConnectionError) {
      return new AttemptFailure(
        new SummarizerError(
          "network",
          `could not reach the summarizer at ${client.baseURL}: ${sanitize(error.message)}; check baseURL and the network`,
          { cause: error },
        ),
        true,
        undefined,
      );
    }
    if (error instanceof APIError) {
      const status = error.status ?? 0;
      const detail = sanitize(error.message);
      if (status === 429) {
        const retryAfter = parseRetryAfter(error.headers);
        return new AttemptFailure(
          new SummarizerError(
            "rate_limited",
            `the summarizer (${model}) is rate limited (429): ${detail}`,
            {
              cause: error,
              ...(retryAfter === undefined ? {} : { retryAfter }),
            },
          ),
          true,
          retryAfter === undefined ? undefined : retryAfter * 1000,
        );
      }
      if (status === 408) {
        return new AttemptFailure(
          new SummarizerError("timeout", `the summarizer (${model}) timed out (408): ${detail}`, {
            cause: error,
          }),
          true,
          undefined,
        );
      }
      if (status >= 500) {
        const retryAfter = parseRetryAfter(error.headers);
        return new AttemptFailure(
          new SummarizerError(
            "server_error",
            `the summarizer (${model}) failed with ${status}: ${detail}`,
            {
              cause: error,
            },
          ),
          true,
          retryAfter === undefined ? undefined : retryAfter * 1000,
        );
      }
      const hint =
        status === 401 || status === 403
          ? "; check apiKey"
          : status === 404
            ? "; check baseURL and model"
            : status === 400
              ? "; the server rejected the request (model name, contextWindow or maxTokensParameter may be wrong)"
              : "";
      return new AttemptFailure(
        new SummarizerError(
          "other",
          `the summarizer (${model}) answered ${status}: ${detail}${hint}`,
          {
            cause: error,
          },
        ),
        false,
        undefined,
      );
    }
    if (error instanceof SyntaxError) {
      return new AttemptFailure(
        new SummarizerError(
          "malformed",
          `the summarizer (${model}) sent a response that is not valid JSON`,
          {
            cause: error,
          },
        ),
        false,
        undefined,
      );
    }
    const message = error instanceof Error ? sanitize(error.message) : String(error);
    return new AttemptFailure(
      new SummarizerError("other", `the summarizer (${model}) failed: ${message}`, {
        cause: error,
      }),
      false,
      undefined,
    );
  }

  function malformed(reason: string): AttemptFailure {
    return new AttemptFailure(
      new SummarizerError(
        "malformed",
        `the summarizer (${model}) sent an unusable response: ${reason}`,
      ),
      false,
      undefined,
    );
  }

  /** Reads a non-streaming completion defensively: servers that claim compatibility differ. */
  function readCompletion(completion: unknown): CallAnswer & { promptTokens: number | undefined } {
    if (typeof completion !== "object" || completion === null || !("choices" in completion)) {
      throw malformed("no `choices` in the response body");
    }
    const choices = completion.choices;
    const first: unknown = Array.isArray(choices) ? choices[0] : undefined;
    if (typeof first !== "object" || first === null || !("message" in first)) {
      throw malformed("no `choices[0].message` in the response body");
    }
    const message = first.message;
    if (typeof message !== "object" || message === null)
      throw malformed("`choices[0].message` is not an object");
    const content = "content" in message ? message.content : null;
    const refusal = "refusal" in message ? message.refusal : null;
    if (content !== null && content !== undefined && typeof content !== "string") {
      throw malformed("`choices[0].message.content` is not a string");
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
      promptTokens,
    };
  }

  return {
    name: `openai:${model}`,
    kind: "llm",
    async summarize(request: SummarizeRequest): Promise<SummarizeResult> {
      const signal = request.signal;
      if (signal?.aborted) throw abortedError();
      const vault: SecretVault = createSecretVault();
      const redact = (text: string) => redactSecrets(text, vault);
      const count = (text: string) => countTokens(text, model);
      let calls = 0;
      let inputTokens = 0;

      /** One attempt: a request and its answer, within the timeout. */
      async function attempt(
        messages: ChatMessageParam[],
        maxOutput: number,
        estimatedTokens: number,
      ): Promise<CallAnswer> {
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
        calls += 1;
        let promptTokens: number | undefined;
        try {
          const body = {
            model,
            messages,
            [maxTokensParameter]: maxOutput,
            ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
          };
          if (!stream) {
            const completion: unknown = await client.chat.completions.create(
              { ...body, stream: false },
              { signal: controller.signal },
            );
            const answer = readCompletion(completion);
            promptTokens = answer.promptTokens;
            return answer;
          }
          const chunks = await client.chat.completions.create(
            { ...body, stream: true, stream_options: { include_usage: true } },
            { signal: controller.signal },
          );
          let content = "";
          let refusal = "";
          let finishReason: string | null = null;
          try {
            for await (const chunk of chunks) {
              arm();
              const choice = chunk.choices?.[0];
              if (choice?.delta?.content) content += choice.delta.content;
              if (choice?.delta?.refusal) refusal += choice.delta.refusal;
              if (choice?.finish_reason) finishReason = choice.finish_reason;
              if (chunk.usage && typeof chunk.usage.prompt_tokens === "number") {
                promptTokens = chunk.usage.prompt_tokens;
              }
            }
          } catch (error) {
            if (error instanceof APIError || error instanceof SyntaxError) throw error;
            if (signal?.aborted || timedOut) throw error;
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
          return { content, refusal, finishReason };
        } catch (error) {
          throw classify(error, signal, timedOut);
        } finally {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          inputTokens += promptTokens ?? estimatedTokens;
        }
      }

      /** A call with retries and backoff for transient failures. */
      async function call(
        messages: ChatMessageParam[],
        maxOutput: number,
        estimatedTokens: number,
      ) {
        for (let retry = 0; ; retry += 1) {
          try {
            return await attempt(messages, maxOutput, estimatedTokens);
          } catch (error) {
            const failure = classify(error, signal, false);
            if (!failure.retryable || retry >= maxRetries) throw failure.failure;
            if (failure.retryAfterMs !== undefined && failure.retryAfterMs > MAX_RETRY_AFTER_MS)
              throw failure.failure;
            const backoff =
              Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** retry) *
              (0.75 + Math.random() * 0.25);
            await delay(failure.retryAfterMs ?? backoff, signal);
          }
        }
      }

      /** Checks an answer; returns its text without inline reasoning. */
      function accept(answer: CallAnswer, what: string): string {
        if (answer.refusal.trim() !== "") {
          throw new SummarizerError(
            "refusal",
            `the summarizer (${model}) refused ${what}: ${sanitize(answer.refusal.slice(0, 200))}`,
          );
        }
        if (answer.finishReason === "content_filter") {
          throw new SummarizerError(
            "refusal",
            `the summarizer (${model}) stopped ${what} on its content filter`,
          );
        }
        if (answer.finishReason === "length") {
          throw new SummarizerError(
            "truncated",
            `the summarizer (${model}) hit its token limit while writing ${what}; raise the summary size limit or use a model with more output`,
          );
        }
        const text = stripInlineReasoning(answer.content).trim();
        if (text === "")
          throw new SummarizerError("empty", `the summarizer (${model}) returned an empty ${what}`);
        if (looksLikeRefusal(text)) {
          throw new SummarizerError(
            "refusal",
            `the summarizer (${model}) refused ${what}: ${sanitize(text.slice(0, 200))}`,
          );
        }
        return text;
      }

      const system = systemPrompt();
      const systemTokens = count(system);
      const margin = Math.ceil(window * WINDOW_MARGIN) + 64;
      const maxOutput = Math.max(
        MIN_OUTPUT_TOKENS,
        Math.min(request.maxTokens, Math.floor(window / 2)),
      );
      const previous =
        request.previousSummary !== undefined && request.previousSummary.trim() !== ""
          ? redact(request.previousSummary)
          : undefined;
      const steering: PromptSteering = {
        targetTokens: Math.max(1, Math.min(request.targetTokens, maxOutput)),
        maxTokens: maxOutput,
        instructions: request.instructions === undefined ? undefined : redact(request.instructions),
        focus: request.focus === undefined ? undefined : redact(request.focus),
        identifierPolicy: request.identifierPolicy,
        identifierInstructions:
          request.identifierInstructions === undefined
            ? undefined
            : redact(request.identifierInstructions),
        ledger: redact(renderLedger(request.ledger)),
      };

      /** The final call (single or merge): its answer must be a complete summary; one retry names what is missing. */
      async function finalCall(userPrompt: string, estimatedPromptTokens: number): Promise<string> {
        const first: ChatMessageParam[] = [
          { role: "system", content: system },
          { role: "user", content: redact(userPrompt) },
        ];
        const answer = accept(await call(first, maxOutput, estimatedPromptTokens), "the summary");
        const missing = missingSections(answer);
        if (missing.length === 0) return answer;
        const retry: ChatMessageParam[] = [
          ...first,
          { role: "assistant", content: answer },
          { role: "user", content: missingSectionsPrompt(missing) },
        ];
        const second = accept(
          await call(retry, maxOutput, estimatedPromptTokens + count(answer) + 64),
          "the summary",
        );
        const stillMissing = missingSections(second);
        if (stillMissing.length > 0) {
          throw new SummarizerError(
            "missing_sections",
            `the summarizer (${model}) left out required section(s) ${stillMissing.join(", ")} even after being asked again`,
          );
        }
        return second;
      }

      const groups = renderGroups(request.messages, count, { transform: redact });
      const middleTokens = groups.reduce((sum, group) => sum + group.tokens, 0);
      const previousTokens = previous === undefined ? 0 : count(previous);
      const steeringTokens = count(
        previous === undefined
          ? summarizePrompt("", steering)
          : updatePrompt(previous, "", steering),
      );
      const singlePromptTokens = systemTokens + steeringTokens + middleTokens + groups.length;
      let summary: string;

      if (singlePromptTokens + maxOutput + margin <= window) {
        const transcript = joinGroups(groups);
        const prompt =
          previous === undefined
            ? summarizePrompt(transcript, steering)
            : updatePrompt(previous, transcript, steering);
        summary = await finalCall(prompt, singlePromptTokens);
      } else {
        const partials = await summarizeChunks(groups);
        summary = await mergeAll(partials);
      }

      /** Chunked path: one summary per chunk, at most `concurrency` at a time. */
      async function summarizeChunks(all: RenderedGroup[]): Promise<string[]> {
        const averageMessageTokens = middleTokens / Math.max(1, request.messages.length);
        const fixed = systemTokens + count(chunkPrompt("", 1, 1, 1)) + margin;
        // A chunk, its prompt and its answer must fit the window.
        let limit = chunkTokenLimit(window, averageMessageTokens);
        let chunkOutput = chunkSummaryTokens(limit);
        if (limit + fixed + chunkOutput > window) {
          limit = Math.max(1, window - fixed - chunkOutput);
          chunkOutput = chunkSummaryTokens(limit);
        }
        const squeezed = all.map((group) =>
          group.tokens > limit
            ? squeezeGroup(request.messages, group, limit, count, { transform: redact })
            : group,
        );
        const chunks = packChunks(squeezed, limit);
        const partials: string[] = new Array<string>(chunks.length).fill("");
        let next = 0;
        let failure: unknown;
        let failed = false;
        const worker = async () => {
          while (next < chunks.length && !failed) {
            const index = next;
            next += 1;
            const chunk = chunks[index] ?? [];
            const text = joinGroups(chunk);
            const tokens = chunk.reduce((sum, group) => sum + group.tokens, 0);
            const target = chunkSummaryTokens(tokens);
            const messages: ChatMessageParam[] = [
              { role: "system", content: system },
              {
                role: "user",
                content: redact(chunkPrompt(text, index + 1, chunks.length, target)),
              },
            ];
            try {
              const answer = await call(messages, chunkOutput, fixed - margin + tokens);
              partials[index] = accept(
                answer,
                `the summary of part ${index + 1} of ${chunks.length}`,
              );
            } catch (error) {
              // The first failure stops the others from starting new chunks; in-flight ones finish.
              if (!failed) failure = error;
              failed = true;
            }
          }
        };
        await Promise.all(Array.from({ length: Math.min(concurrency, chunks.length) }, worker));
        if (failed) throw failure;
        return partials;
      }

      /** Merges partial summaries, in rounds when they do not fit one merge call. */
      async function mergeAll(partialsIn: string[]): Promise<string> {
        let partials = partialsIn;
        const finalFixed = systemTokens + count(mergePrompt([], steering, previous)) + margin;
        const room = window - finalFixed - maxOutput;
        for (;;) {
          const tokens = partials.map(count);
          const total = tokens.reduce((sum, value) => sum + value, 0);
          if (total <= room || partials.length <= 1) {
            return finalCall(
              mergePrompt(partials, steering, previous),
              finalFixed - margin + total,
            );
          }
          // Merge neighbours in batches that fit, keeping order; the partial summaries of this round are intermediate.
          const batchRoom =
            window - systemTokens - count(mergePrompt([], steering)) - margin - maxOutput;
          const merged: string[] = [];
          let batch: string[] = [];
          let batchTokens = 0;
          const flush = async () => {
            if (batch.length === 0) return;
            if (batch.length === 1) {
              merged.push(batch[0] ?? "");
            } else {
              const messages: ChatMessageParam[] = [
                { role: "system", content: system },
                { role: "user", content: redact(mergePrompt(batch, { ...steering, ledger: "" })) },
              ];
              const answer = await call(messages, maxOutput, systemTokens + batchTokens + 200);
              merged.push(accept(answer, "a merged summary"));
            }
            batch = [];
            batchTokens = 0;
          };
          for (const [index, partial] of partials.entries()) {
            const partialTokens = tokens[index] ?? 0;
            if (batch.length > 0 && batchTokens + partialTokens > batchRoom) await flush();
            batch.push(partial);
            batchTokens += partialTokens;
          }
          await flush();
          if (merged.length >= partials.length) {
            throw new SummarizerError(
              "too_large",
              `the partial summaries do not fit the summarizer's window (${window} tokens) even in pairs; use a summarizer model with a larger context window`,
            );
          }
          partials = merged;
        }
      }

      function chunkSummaryTokens(chunkTokens: number): number {
        return Math.round(
          Math.min(
            CHUNK_SUMMARY_MAX,
            Math.max(CHUNK_SUMMARY_MIN, chunkTokens * CHUNK_SUMMARY_SHARE),
            maxOutput,
          ),
        );
      }

      const restored = restoreSecrets(summary, vault);
      const summaryTokens = count(restored);
      const materialTokens = middleTokens + previousTokens;
      if (summaryTokens > Math.max(materialTokens, SMALL_SUMMARY_TOKENS)) {
        throw new SummarizerError(
          "too_large",
          `the summary (${summaryTokens} tokens) is larger than what it summarizes (${materialTokens} tokens)`,
        );
      }
      if (summaryTokens > request.maxTokens * SIZE_TOLERANCE) {
        throw new SummarizerError(
          "too_large",
          `the summary (${summaryTokens} tokens) exceeds the limit of ${request.maxTokens} tokens; the server may ignore ${maxTokensParameter}`,
        );
      }
      const missing = missingIdentifiers(restored, request.ledger);
      const complete =
        missing.length === 0 ? restored : appendMissingIdentifiers(restored, missing);
      return { summary: complete, calls, inputTokens };
    },
  };
}
