/**
 * @module test/support/global-setup
 * Starts the controllable LLM servers and the gateway's upstream in Node
 * before the workerd tests and hands their URLs to the Worker's bindings (see
 * vitest.config.ts).
 */

import type { TestProject } from "vitest/node";
import { startGatewayUpstream } from "./gateway-upstream";
import { startLlmServers } from "./llm-server";

declare module "vitest" {
  export interface ProvidedContext {
    llmChatUrl: string;
    llmControlUrl: string;
    gatewayUpstreamUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const servers = await startLlmServers();
  const upstream = await startGatewayUpstream();
  project.provide("llmChatUrl", servers.chatUrl);
  project.provide("llmControlUrl", servers.controlUrl);
  project.provide("gatewayUpstreamUrl", upstream.origin);
  return async () => {
    await servers.close();
    await upstream.close();
  };
}
