/**
 * @module test/global-setup
 * Starts the test model providers in Node before the workerd tests (workerd
 * cannot listen) and hands their URLs to them through `inject`: the
 * OpenAI-protocol one (`modelUrl`) and the Anthropic-protocol one
 * (`anthropicUrl`).
 */

import type { TestProject } from "vitest/node";
import { startAnthropicServer } from "./anthropic-server.js";
import { startModelServer } from "./model-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    modelUrl: string;
    anthropicUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startModelServer();
  const anthropic = await startAnthropicServer();
  project.provide("modelUrl", server.origin);
  project.provide("anthropicUrl", anthropic.origin);
  return async () => {
    await server.close();
    await anthropic.close();
  };
}
