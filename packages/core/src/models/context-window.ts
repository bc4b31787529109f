/**
 * @module models/context-window
 * How many tokens a request to a model may carry (its input limit: where a provider documents
 * input and output limits apart, the input one), and parsing of user-given window sizes such
 * as `"128k"`.
 *
 * Two sources, and the smaller wins where both know a model: the maintained catalog
 * (`models/catalog`, exact model names, windows of input and output together) with the
 * corrections below, and this module's table of families, looked up by the longest matching
 * prefix of the normalized model name (documented input limits, hosts' smaller windows, and
 * families the catalog does not list). A window that is too small only compacts early, one
 * that is too large gets requests rejected. Anything else can be set per model with `overrides`.
 */

import { InvalidOptionsError } from "../errors/condense-error.js";
import { catalogModel } from "./catalog.js";
import { normalizeModelName } from "./model-name.js";

/** Window for models the table does not know: the common size of current mid-size models. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

// Keys are normalized names (see normalizeModelName); the longest matching key wins, so a
// variant with a smaller window (glm-4.6v under glm-4.6) needs its own key.
// Sources, checked 2026-11: the providers' model pages, models.dev, and LiteLLM's
// model_prices_and_context_window.json (`max_input_tokens`).
const windows: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  // OpenAI (platform model pages). GPT-5's 400k is input plus output: "all GPT-5 models can
  // accept a maximum of 272,000 input tokens" (Introducing GPT-5 for developers; the API
  // answers "Input tokens exceed the configured limit of 272000 tokens"). Later 5.x releases
  // advertise more but bill prompts over 272k at twice the rate; override to go past it.
  // The chat snapshots are 128k of context with 16k of output.
  ["gpt-5", 272_000],
  ["gpt-5-chat", 128_000],
  ["gpt-5.1-chat", 128_000],
  ["gpt-5.2-chat", 128_000],
  // Codex-Spark, the real-time coding model, has 128k (OpenAI's launch post; models.dev).
  ["gpt-5.3-codex-spark", 128_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4.5", 128_000],
  ["gpt-4o", 128_000],
  ["gpt-4o-mini", 128_000],
  ["chatgpt-4o", 128_000],
  ["gpt-realtime", 32_000],
  ["gpt-4-turbo", 128_000],
  ["gpt-4-1106", 128_000],
  ["gpt-4-0125", 128_000],
  ["gpt-4-vision", 128_000],
  ["gpt-4-32k", 32_768],
  ["gpt-4", 8_192],
  ["gpt-3.5-turbo", 16_385],
  ["gpt-3.5-turbo-0301", 4_096],
  ["gpt-3.5-turbo-0613", 4_096],
  ["gpt-3.5-turbo-16k", 16_385],
  ["gpt-3.5-turbo-instruct", 4_096],
  ["gpt-35-turbo", 16_385],
  ["o1", 200_000],
  ["o1-mini", 128_000],
  ["o1-preview", 128_000],
  ["o3", 200_000],
  ["o3-mini", 200_000],
  ["o4-mini", 200_000],
  ["codex-mini", 200_000],
  ["gpt-oss", 131_072],
  // Anthropic (models overview): every Claude 3.x and 4.x model has 200k. Sonnet 4 and 4.5
  // accept 1M only behind a beta header, so that window must be asked for with an override.
  ["claude", 200_000],
  ["claude-2.0", 100_000],
  ["claude-instant", 100_000],
  // Google (Gemini API models page, "input token limit").
  ["gemini", 1_048_576],
  ["gemini-1.5-pro", 2_097_152],
  ["gemini-1.0-pro", 32_760],
  ["gemini-2.5-flash-image", 32_768],
  // The Live API models take 128k (models.dev), far under the Gemini family's 1M.
  ["gemini-live", 128_000],
  ["gemma", 8_192],
  ["gemma-3", 131_072],
  ["gemma-3-1b", 32_768],
  ["gemma-3n", 32_768],
  // xAI (docs.x.ai models, models.dev). grok-2-vision: xAI lists 32,768, models.dev and
  // agent harnesses 8,192; the smaller wins. Grok 4 is 256k, its Fast variants 2M.
  ["grok", 131_072],
  ["grok-2-vision", 8_192],
  ["grok-vision", 8_192],
  ["grok-4", 256_000],
  ["grok-4-fast", 2_000_000],
  ["grok-4-1-fast", 2_000_000],
  ["grok-4.1-fast", 2_000_000],
  ["grok-code-fast", 256_000],
  // Meta (names canonicalised to llama-<major>.<minor>). Meta's Llama API serves 3.x and 4 at
  // 128,000 (Groq at 131,072); Meta documents 10M for Llama 4 Scout and 1M for Maverick, but
  // hosts serve 128k-1M: use 128,000 unless overridden.
  ["llama-2", 4_096],
  ["llama-3", 8_192],
  ["llama-3.1", 128_000],
  ["llama-3.2", 128_000],
  ["llama-3.3", 128_000],
  ["llama-4", 128_000],
  ["codellama", 16_384],
  // DeepSeek's own API (models & pricing): deepseek-chat and deepseek-reasoner, 128k since
  // V3.1 (some hosts still serve 64k: override there).
  ["deepseek", 128_000],
  // Qwen open weights (model cards): 32k native (131k only with YaRN enabled by the host); the
  // 2507 releases, Coder and Next are 256k natively. Alibaba Model Studio's API models by
  // their "max input" (below their context): qwen-max 30,720 of 32,768, qwen-plus and
  // qwen-turbo 129,024 of 131,072 (thinking mode: 98,304), qwen3-max 258,048 of 262,144.
  ["qwen", 32_768],
  ["qwen2.5", 32_768],
  ["qwen3", 32_768],
  ["qwen3-coder", 262_144],
  ["qwen3-max", 258_048],
  ["qwen3-next", 262_144],
  ["qwen3-235b-a22b-instruct-2507", 262_144],
  ["qwen3-235b-a22b-thinking-2507", 262_144],
  ["qwen3-30b-a3b-instruct-2507", 262_144],
  ["qwen3-30b-a3b-thinking-2507", 262_144],
  ["qwen-max", 30_720],
  ["qwen-plus", 129_024],
  ["qwen-turbo", 129_024],
  ["qwq", 131_072],
  // Zhipu GLM (Z.ai / bigmodel.cn model pages). The vision models are smaller than the text
  // models their names start with: glm-4.5v 64k, glm-4.6v 128k, the glm-4v series 8k, as is
  // glm-4-airx (8k).
  ["glm-4", 128_000],
  ["glm-4-airx", 8_192],
  ["glm-4v", 8_192],
  ["glm-4.5", 128_000],
  ["glm-4.5v", 64_000],
  ["glm-4.6", 200_000],
  ["glm-4.6v", 128_000],
  // Mistral (docs models overview): current models are 128k; older and open-weight ones
  // smaller (Mistral's "32k"/"64k" are 32,000/64,000, as LiteLLM and models.dev list them).
  ["mistral", 32_000],
  ["mistral-large", 128_000],
  ["mistral-medium", 128_000],
  ["mistral-small", 128_000],
  ["mistral-small-2402", 32_000],
  ["mistral-nemo", 128_000],
  ["mistral-7b", 32_000],
  ["mixtral-8x7b", 32_000],
  ["mixtral-8x22b", 64_000],
  ["ministral", 128_000],
  ["codestral", 128_000],
  ["codestral-2405", 32_000],
  ["codestral-22b", 32_000],
  ["pixtral", 128_000],
  ["devstral", 128_000],
  ["magistral", 40_000],
];

/**
 * Catalog windows that are wrong, by catalog id: rounded (1M for 1,048,576), or stale (DeepSeek's
 * API serves 128k since V3.1; grok-2-1212 is 131,072 on xAI's page; Gemini 1.5 Pro is 2M).
 * Each is the provider's documented value, which the table above also holds.
 */
const catalogWindowCorrections: Readonly<Record<string, number>> = {
  "gpt-4.1": 1_047_576,
  "gpt-4.1-mini": 1_047_576,
  "gpt-4.1-nano": 1_047_576,
  "gpt-4-32k": 32_768,
  "gemini-1.5-flash": 1_048_576,
  "gemini-1.5-pro": 2_097_152,
  "gemini-2.0-flash": 1_048_576,
  "gemini-2.0-flash-lite": 1_048_576,
  "deepseek-chat": 128_000,
  "deepseek-reasoner": 128_000,
  "grok-2-1212": 131_072,
};

/** The catalog's window for `name`, corrected, if the catalog lists the model with one. */
function catalogWindow(name: string): number | undefined {
  const entry = catalogModel(name);
  if (entry?.contextWindow === undefined) return undefined;
  return catalogWindowCorrections[entry.id] ?? entry.contextWindow;
}

function longestPrefix<T>(
  name: string,
  entries: ReadonlyArray<readonly [string, T]>,
): T | undefined {
  let best: T | undefined;
  let bestLength = -1;
  for (const [prefix, value] of entries) {
    if (prefix.length > bestLength && name.startsWith(prefix)) {
      best = value;
      bestLength = prefix.length;
    }
  }
  return best;
}

/**
 * Context window of `model` in tokens. `overrides` maps model names (or name prefixes, in any
 * spelling the model may come in) to windows and wins over the catalog and the table, longest
 * prefix first. Models neither knows get {@link DEFAULT_CONTEXT_WINDOW}.
 *
 * @throws InvalidOptionsError when an override is not a positive whole number.
 */
export function contextWindowFor(model: string, overrides?: Record<string, number>): number {
  if (typeof model !== "string") {
    throw new InvalidOptionsError(
      "model",
      `expected the model name as a string, e.g. \`gpt-4o\`, got ${model === null ? "null" : typeof model}`,
    );
  }
  const name = normalizeModelName(model);
  if (overrides) {
    const entries: Array<readonly [string, number]> = [];
    for (const [key, value] of Object.entries(overrides)) {
      if (!Number.isSafeInteger(value) || value <= 0) {
        throw new InvalidOptionsError(
          "contextWindow",
          `the override for "${key}" must be a positive whole number of tokens, got ${String(value)}`,
        );
      }
      entries.push([normalizeModelName(key), value]);
    }
    const overridden = longestPrefix(name, entries);
    if (overridden !== undefined) return overridden;
  }
  const fromTable = longestPrefix(name, windows);
  const fromCatalog = catalogWindow(name);
  if (fromTable !== undefined && fromCatalog !== undefined) return Math.min(fromTable, fromCatalog);
  return fromTable ?? fromCatalog ?? DEFAULT_CONTEXT_WINDOW;
}

const sizePattern = /^(\d+(?:\.\d*)?|\.\d+)\s*([km]?)(?:\s*tokens?)?$/;

/**
 * A window size given as a number of tokens (`128000`) or a string with an optional
 * `k` (thousand) or `m` (million) suffix: `"128k"`, `"200K"`, `"1m"`, `"1.5m"`, `"128_000"`,
 * `"128,000"`. `m` is decimal, so `"1m"` is 1,000,000 (just under Gemini's 1,048,576).
 * Fractions of a token are dropped.
 *
 * @throws InvalidOptionsError (`contextWindow`) for anything that is not a positive size.
 */
export function parseContextWindow(value: number | string): number {
  let tokens = Number.NaN;
  if (typeof value === "number") {
    tokens = Number.isSafeInteger(value) ? value : Number.NaN;
  } else if (typeof value === "string") {
    const match = sizePattern.exec(value.trim().toLowerCase().replace(/[_,]/g, ""));
    if (match) {
      const multiplier = match[2] === "k" ? 1_000 : match[2] === "m" ? 1_000_000 : 1;
      // Round away float noise first ("2.3k" is 2299.9999999999995 in binary), then drop fractions.
      tokens = Math.floor(Math.round(Number(match[1]) * multiplier * 1000) / 1000);
    }
  }
  if (!Number.isSafeInteger(tokens) || tokens <= 0) {
    const shown = typeof value === "string" ? JSON.stringify(value) : String(value);
    throw new InvalidOptionsError(
      "contextWindow",
      `expected a positive number of tokens such as 128000, "128k" or "1.5m", got ${shown}`,
    );
  }
  return tokens;
}
