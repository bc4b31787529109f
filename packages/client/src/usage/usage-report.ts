/**
 * @module usage-report
 * One answer's usage, as each provider reports it, in the form the append's `usage` takes
 * (`UsageReport`): every input token of the prompt and, of them, those read from and written to
 * the prompt cache, so the session's bill counts what the provider did (issue 32). A figure the
 * provider left out stays out; none is guessed.
 */

import type { LanguageModelV4Usage } from "@ai-sdk/provider";
import type { CompletionUsage } from "openai/resources/completions";
import type { ResponseUsage } from "openai/resources/responses/responses";
import type { UsageReport } from "../api-types.js";

/**
 * The report of `inputTokens` with its cached parts. The service refuses cached parts over the
 * total; an answer whose append is refused would be retried forever, so a provider's inconsistent
 * figures are cut to the total rather than sent.
 */
export function usageReport(
  inputTokens: number,
  cacheRead: number | null | undefined,
  cacheWrite: number | null | undefined,
): UsageReport {
  const read = typeof cacheRead === "number" ? Math.min(cacheRead, inputTokens) : undefined;
  const write =
    typeof cacheWrite === "number" ? Math.min(cacheWrite, inputTokens - (read ?? 0)) : undefined;
  return {
    inputTokens,
    ...(read !== undefined ? { cacheReadTokens: read } : {}),
    ...(write !== undefined ? { cacheWriteTokens: write } : {}),
  };
}

/**
 * Chat Completions: `prompt_tokens`, of which `prompt_tokens_details.cached_tokens` were read and
 * `cache_write_tokens` written (models with explicit cache breakpoints).
 */
export function chatUsage(usage: CompletionUsage | null | undefined): UsageReport | undefined {
  if (usage == null || typeof usage.prompt_tokens !== "number") return undefined;
  const details = usage.prompt_tokens_details;
  return usageReport(usage.prompt_tokens, details?.cached_tokens, details?.cache_write_tokens);
}

/** Responses: `input_tokens`, of which `input_tokens_details.cached_tokens` were read, `cache_write_tokens` written. */
export function responsesUsage(usage: ResponseUsage | null | undefined): UsageReport | undefined {
  if (usage == null || typeof usage.input_tokens !== "number") return undefined;
  const details = usage.input_tokens_details;
  return usageReport(usage.input_tokens, details?.cached_tokens, details?.cache_write_tokens);
}

/** The AI SDK: `inputTokens.total` (cached ones included), `.cacheRead`, `.cacheWrite`. */
export function aiSdkUsage(usage: LanguageModelV4Usage | undefined): UsageReport | undefined {
  const input = usage?.inputTokens;
  if (input === undefined || typeof input.total !== "number") return undefined;
  return usageReport(input.total, input.cacheRead, input.cacheWrite);
}

/**
 * Anthropic: `input_tokens` counts only the uncached part; the prompt is it plus the cache's
 * reads (`cache_read_input_tokens`) and writes (`cache_creation_input_tokens`).
 */
export function anthropicUsage(usage: {
  input_tokens: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}): UsageReport | undefined {
  if (typeof usage.input_tokens !== "number") return undefined;
  const read = usage.cache_read_input_tokens ?? 0;
  const written = usage.cache_creation_input_tokens ?? 0;
  return usageReport(
    usage.input_tokens + read + written,
    usage.cache_read_input_tokens,
    usage.cache_creation_input_tokens,
  );
}
