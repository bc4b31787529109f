/**
 * @module test/anthropic-model
 * An Anthropic client pointed at the test model provider
 * (test/scenario-server.ts; scenarios and logs are test/model.ts's).
 */

import Anthropic from "@anthropic-ai/sdk";
import { modelUrl } from "./model.js";

/** An Anthropic client for the test server, without retries so every request is visible. */
export function anthropicClient(): Anthropic {
  return new Anthropic({ apiKey: "sk-ant-test", baseURL: modelUrl(), maxRetries: 0 });
}
