/**
 * @module test/global-setup
 * Starts the controllable LLM servers in Node before the workerd tests and
 * hands their URLs to the Worker's bindings (see vitest.config.ts).
 */

import type { TestProject } from "vitest/node";
import { startLlmServers } from "./llm-server";

declare module "vitest" {
  export interface ProvidedContext {
    llmChatUrl: string;
    llmControlUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const servers = await startLlmServers();
  project.provide("llmChatUrl", servers.chatUrl);
  project.provide("llmControlUrl", servers.controlUrl);
  return () => servers.close();
}
