/**
 * @module session/summarizer-config
 * Builds the summarizer from the Worker's configuration: an OpenAI-compatible
 * LLM when `SUMMARIZER_BASE_URL` or `SUMMARIZER_API_KEY` is set (model from
 * the session's `summarizerModel`, else `SUMMARIZER_MODEL`, else
 * gpt-4o-mini), otherwise the deterministic extractive summarizer.
 */

import { extractiveSummarizer, type Summarizer } from "@condense/core";
import { openAISummarizer } from "@condense/core/openai";

export const DEFAULT_SUMMARIZER_MODEL = "gpt-4o-mini";

/** How long one summarizer call may take before it counts as a failure. */
const SUMMARIZER_TIMEOUT_MS = 120_000;

export function isLlmSummarizerConfigured(env: Env): boolean {
  return (
    (env.SUMMARIZER_BASE_URL?.trim() ?? "") !== "" || (env.SUMMARIZER_API_KEY?.trim() ?? "") !== ""
  );
}

export function summarizerFor(env: Env, sessionModel?: string | null): Summarizer {
  if (!isLlmSummarizerConfigured(env)) return extractiveSummarizer();
  const baseURL = env.SUMMARIZER_BASE_URL?.trim();
  return openAISummarizer({
    // An OpenAI-compatible local server may need no key; the SDK still wants a string.
    apiKey: env.SUMMARIZER_API_KEY?.trim() || "unused",
    ...(baseURL ? { baseURL } : {}),
    model: sessionModel ?? (env.SUMMARIZER_MODEL?.trim() || DEFAULT_SUMMARIZER_MODEL),
    timeoutMs: SUMMARIZER_TIMEOUT_MS,
    maxRetries: 1,
  });
}
