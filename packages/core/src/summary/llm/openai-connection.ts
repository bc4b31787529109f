/**
 * @module summary/llm/openai-connection
 * Reads how a caller asked to reach an OpenAI-compatible model
 * (`OpenAIConnectionOptions`) and opens the transport to it: the summarizer
 * and the memory flush are configured alike, each with its own defaults. Bad
 * options throw `InvalidOptionsError` naming the option before any call.
 */

import { InvalidOptionsError } from "../../errors/condense-error.js";
import { nonNegativeInteger, positiveNumber } from "../../errors/option-checks.js";
import { contextWindowFor } from "../../models/context-window.js";
import { type OpenAIConnectionOptions, OpenAITransport } from "./openai-transport.js";

const DEFAULT_TIMEOUT_MS = 60_000;
/** Share of the window kept free for differences between our token count and the server's. */
const WINDOW_MARGIN = 0.05;

/** What the caller's options leave out: each caller states its own. */
export interface ConnectionDefaults {
  /** Who connects, for the error messages: `summarizer`, `memory flush`. */
  role: string;
  maxRetries: number;
  /** Most tokens one answer may take; undefined: half the window (never more, either way). */
  maxOutputTokens?: number;
}

/** An open connection and the figures the caller plans its calls with. */
export interface Connection {
  model: string;
  /** Tokens the model accepts. */
  window: number;
  maxOutputTokens: number;
  maxTokensParameter: "max_tokens" | "max_completion_tokens";
  /** Tokens of the window kept free for differences between our token count and the server's. */
  margin: number;
  transport: OpenAITransport;
}

/** Checks the options (throws `InvalidOptionsError`) and opens the transport they describe. */
export function openConnection(
  options: OpenAIConnectionOptions & { maxOutputTokens?: number },
  defaults: ConnectionDefaults,
): Connection {
  if (typeof options !== "object" || options === null) {
    throw new InvalidOptionsError(
      "options",
      "expected { apiKey, model } (and optionally baseURL, timeoutMs, maxRetries, headers)",
    );
  }
  if (typeof options.model !== "string" || options.model.trim() === "") {
    throw new InvalidOptionsError(
      "model",
      `expected the ${defaults.role} model name, e.g. \`gpt-4o-mini\``,
    );
  }
  if (typeof options.apiKey !== "string" || options.apiKey === "") {
    throw new InvalidOptionsError(
      "apiKey",
      "expected a non-empty string; for a server that needs no key, pass any placeholder such as `none`",
    );
  }
  const model = options.model;
  const window =
    options.contextWindow === undefined
      ? contextWindowFor(model)
      : Math.floor(positiveNumber("contextWindow", options.contextWindow, 1));
  const maxOutputTokens = Math.floor(
    Math.min(
      positiveNumber(
        "maxOutputTokens",
        options.maxOutputTokens,
        defaults.maxOutputTokens ?? window / 2,
      ),
      window / 2,
    ),
  );
  const maxTokensParameter = options.maxTokensParameter ?? "max_tokens";
  const transport = new OpenAITransport({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    model,
    timeoutMs: positiveNumber("timeoutMs", options.timeoutMs, DEFAULT_TIMEOUT_MS),
    maxRetries: nonNegativeInteger("maxRetries", options.maxRetries, defaults.maxRetries),
    headers: options.headers,
    fetch: options.fetch,
    stream: options.stream ?? true,
    maxTokensParameter,
    temperature: options.temperature,
  });
  const margin = Math.ceil(window * WINDOW_MARGIN);
  return { model, window, maxOutputTokens, maxTokensParameter, margin, transport };
}
