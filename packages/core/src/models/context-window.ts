/**
 * @module models/context-window
 * How many tokens a model accepts (input plus output, as providers document it), looked up by
 * the longest matching prefix of the normalized model name, and parsing of user-given window
 * sizes such as `"128k"`.
 *
 * Where providers or hosts disagree the table takes the smaller documented value: a window
 * that is too small only compacts early, one that is too large gets requests rejected.
 * Anything else can be set per model with `overrides`.
 */

import { InvalidOptionsError } from "../errors/condense-error.js";
import { normalizeModelName } from "./model-name.js";

/** Window for models the table does not know: the common size of current mid-size models. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

// Keys are normalized names (see normalizeModelName); the longest matching key wins.
const windows: ReadonlyArray<readonly [prefix: string, tokens: number]> = [
  // OpenAI. GPT-5's 400k is input plus output (at most 272k of input).
  ["gpt-5", 400_000],
  ["gpt-5-chat", 128_000],
  ["gpt-5.1-chat", 128_000],
  ["gpt-5.2-chat", 128_000],
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
  // Anthropic: every Claude 3.x and 4.x model has 200k. Sonnet 4 and 4.5 accept 1M only
  // behind a beta header, so that window must be asked for with an override.
  ["claude", 200_000],
  ["claude-2.0", 100_000],
  ["claude-instant", 100_000],
  // Google.
  ["gemini", 1_048_576],
  ["gemini-1.5-pro", 2_097_152],
  ["gemini-1.0-pro", 32_760],
  ["gemini-2.5-flash-image", 32_768],
  ["gemma", 8_192],
  ["gemma-3", 131_072],
  ["gemma-3-1b", 32_768],
  ["gemma-3n", 32_768],
  // Meta (names canonicalised to llama-<major>.<minor>). Meta documents 10M for Llama 4 Scout
  // and 1M for Maverick, but hosts serve 128k-1M; use the common 128k unless overridden.
  ["llama-2", 4_096],
  ["llama-3", 8_192],
  ["llama-3.1", 131_072],
  ["llama-3.2", 131_072],
  ["llama-3.3", 131_072],
  ["llama-4", 131_072],
  ["codellama", 16_384],
  // DeepSeek's own API: deepseek-chat and deepseek-reasoner, 128k since V3.1 (some hosts
  // still serve 64k: override there).
  ["deepseek", 128_000],
  // Qwen open weights: 32k native (131k only with YaRN enabled by the host); the 2507
  // releases, Coder, Max and Next are 256k natively. API models by their documented sizes.
  ["qwen", 32_768],
  ["qwen2.5", 32_768],
  ["qwen3", 32_768],
  ["qwen3-coder", 262_144],
  ["qwen3-max", 262_144],
  ["qwen3-next", 262_144],
  ["qwen3-235b-a22b-instruct-2507", 262_144],
  ["qwen3-235b-a22b-thinking-2507", 262_144],
  ["qwen3-30b-a3b-instruct-2507", 262_144],
  ["qwen3-30b-a3b-thinking-2507", 262_144],
  ["qwen-max", 32_768],
  ["qwen-plus", 131_072],
  ["qwen-turbo", 131_072],
  ["qwq", 131_072],
  // Zhipu GLM.
  ["glm-4", 128_000],
  ["glm-4.5", 128_000],
  ["glm-4.5v", 64_000],
  ["glm-4.6", 200_000],
  // Mistral: current models are 128k; older and open-weight ones smaller.
  ["mistral", 32_000],
  ["mistral-large", 128_000],
  ["mistral-medium", 128_000],
  ["mistral-small", 128_000],
  ["mistral-small-2402", 32_000],
  ["mistral-nemo", 128_000],
  ["mistral-7b", 32_768],
  ["mixtral-8x7b", 32_768],
  ["mixtral-8x22b", 65_536],
  ["ministral", 128_000],
  ["codestral", 128_000],
  ["codestral-2405", 32_000],
  ["codestral-22b", 32_000],
  ["pixtral", 128_000],
  ["devstral", 128_000],
  ["magistral", 40_000],
];

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
 * spelling the model may come in) to windows and wins over the built-in table, longest prefix
 * first. Unknown models get {@link DEFAULT_CONTEXT_WINDOW}.
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
  return longestPrefix(name, windows) ?? DEFAULT_CONTEXT_WINDOW;
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
