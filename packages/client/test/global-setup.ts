/**
 * @module test/global-setup
 * Starts the test model provider (test/scenario-server.ts) in Node before the
 * workerd tests (workerd cannot listen) and hands its origin to them through
 * `inject` (`modelUrl`): OpenAI clients take `${modelUrl}/v1`, Anthropic
 * clients the origin itself.
 */

import type { TestProject } from "vitest/node";
import { startScenarioServer } from "./scenario-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    modelUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startScenarioServer();
  project.provide("modelUrl", server.origin);
  return () => server.close();
}
