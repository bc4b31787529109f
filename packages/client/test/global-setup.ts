/**
 * @module test/global-setup
 * Starts the test model provider in Node before the workerd tests (workerd
 * cannot listen) and hands its URL to them through `inject("modelUrl")`.
 */

import type { TestProject } from "vitest/node";
import { startModelServer } from "./model-server.js";

declare module "vitest" {
  export interface ProvidedContext {
    modelUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startModelServer();
  project.provide("modelUrl", server.origin);
  return () => server.close();
}
