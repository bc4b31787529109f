import { createOpenAI } from "@ai-sdk/openai";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";

/** The deployment's URL. */
declare const CONDENSE: string;

// #region snippet
// Locally the SDK keeps your provider key; on a deployed Worker add "X-Condense-Key" (below).
// openai (TypeScript)
const openai = new OpenAI({
  baseURL: `${CONDENSE}/v1/gateway/openai`,
  defaultHeaders: { "X-Condense-Session": "run-42" },
});
// @anthropic-ai/sdk
const anthropic = new Anthropic({
  baseURL: `${CONDENSE}/v1/gateway/anthropic`,
  defaultHeaders: { "X-Condense-Session": "run-42" },
});
// AI SDK (@ai-sdk/openai; for @ai-sdk/anthropic use createAnthropic with baseURL `${CONDENSE}/v1/gateway/anthropic/v1`)
const provider = createOpenAI({
  baseURL: `${CONDENSE}/v1/gateway/openai`,
  headers: { "X-Condense-Session": "run-42" },
});

// #endregion

export { anthropic, openai, provider };
