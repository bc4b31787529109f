/**
 * @module @condense/core/openai
 * The LLM summarizer and the LLM memory flush, through the official `openai` SDK (an optional peer dependency).
 * It lives in its own entry point so that importing `@condense/core` does not load the
 * SDK: apps that summarize deterministically, or only count tokens, start faster
 * (the SDK alone takes over 100 ms to import in Node).
 */

export {
  type MemoryFlusher,
  type OpenAIMemoryFlushOptions,
  openAIMemoryFlusher,
} from "./memory/llm-flush.js";
export { type OpenAISummarizerOptions, openAISummarizer } from "./summary/llm/openai-summarizer.js";
export type { OpenAIConnectionOptions } from "./summary/llm/openai-transport.js";
