/** Providers whose real overflow errors the test model server sends (see test/model-server.ts). */
export const PROVIDER_NAMES = [
  "openai",
  "anthropic",
  "vllm",
  "llama.cpp",
  "gemini",
  "mistral",
] as const;

export type ProviderName = (typeof PROVIDER_NAMES)[number];
