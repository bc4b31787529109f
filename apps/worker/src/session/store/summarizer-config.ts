/**
 * @module session/store/summarizer-config
 * Builds the summarizer and the memory flusher from the Worker's configuration
 * (`config/worker-config`): Workers AI with `SUMMARIZER=workers-ai` and the
 * `AI` binding (through `workers-ai/chat-completions`, no key), an
 * OpenAI-compatible LLM when `SUMMARIZER_BASE_URL` or `SUMMARIZER_API_KEY` is
 * set; the model is the session's `summarizerModel`, else `SUMMARIZER_MODEL`,
 * else the summarizer's default. Otherwise the deterministic extractive
 * summarizer, and no LLM flusher.
 */

import { extractiveSummarizer, type Summarizer } from "@condense/core";
import {
  type MemoryFlusher,
  type OpenAIConnectionOptions,
  openAIMemoryFlusher,
  openAISummarizer,
} from "@condense/core/openai";
import { workerConfig } from "../../config/worker-config";
import { workersAiFetch } from "../../workers-ai/chat-completions";

/** How long one summarizer call may take before it counts as a failure. */
const SUMMARIZER_TIMEOUT_MS = 120_000;
/**
 * How long the flush's model call may take. The compaction commits without waiting for it (see
 * `compaction/run`), but a manual compaction's answer does, so it is shorter than the summarizer's.
 */
const FLUSH_TIMEOUT_MS = 30_000;

/** The connection to the configured LLM, with the session's model if it names one; none without. */
function llmConnection(
  env: Env,
  sessionModel: string | null | undefined,
): OpenAIConnectionOptions | undefined {
  const summarizer = workerConfig(env).summarizer;
  if (summarizer.kind === "workers-ai" && env.AI !== undefined) {
    return {
      // No key and no network: the SDK's requests are answered by the binding.
      apiKey: "workers-ai",
      baseURL: "https://workers-ai.internal/v1",
      fetch: workersAiFetch(env.AI),
      stream: false,
      model: sessionModel ?? summarizer.model,
      contextWindow: summarizer.contextWindow,
    };
  }
  if (summarizer.kind !== "openai") return undefined;
  return {
    apiKey: summarizer.apiKey,
    ...(summarizer.baseURL !== undefined ? { baseURL: summarizer.baseURL } : {}),
    model: sessionModel ?? summarizer.model,
  };
}

export function summarizerFor(env: Env, sessionModel?: string | null): Summarizer {
  const connection = llmConnection(env, sessionModel);
  if (connection === undefined) return extractiveSummarizer();
  return openAISummarizer({ ...connection, timeoutMs: SUMMARIZER_TIMEOUT_MS, maxRetries: 1 });
}

/** The LLM memory flusher, or undefined when no LLM is configured (the deterministic pass runs). */
export function memoryFlusherFor(
  env: Env,
  sessionModel?: string | null,
): MemoryFlusher | undefined {
  const connection = llmConnection(env, sessionModel);
  if (connection === undefined) return undefined;
  return openAIMemoryFlusher({ ...connection, timeoutMs: FLUSH_TIMEOUT_MS, maxRetries: 1 });
}
