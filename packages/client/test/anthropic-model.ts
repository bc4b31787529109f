/**
 * @module test/anthropic-model
 * The workerd side of the Anthropic-protocol test server
 * (test/anthropic-server.ts): registering a scenario, reading what the server
 * received, and an Anthropic client pointed at it.
 */

import Anthropic from "@anthropic-ai/sdk";
import { inject } from "vitest";
import type { AnthropicLogEntry, AnthropicScenario } from "./anthropic-server.js";

export type { AnthropicLogEntry, AnthropicScenario };

/** Registers an Anthropic-protocol scenario; requests whose `model` is its name follow it. */
export async function registerAnthropicScenario(scenario: AnthropicScenario): Promise<void> {
  const response = await fetch(`${inject("anthropicUrl")}/scenarios`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(scenario),
  });
  if (!response.ok)
    throw new Error(`registering scenario ${scenario.name} failed: ${response.status}`);
}

/** Every request the Anthropic-protocol server received for scenario `name`, in order. */
export async function anthropicLog(name: string): Promise<AnthropicLogEntry[]> {
  const response = await fetch(
    `${inject("anthropicUrl")}/scenarios/${encodeURIComponent(name)}/log`,
  );
  return (await response.json()) as AnthropicLogEntry[];
}

/** An Anthropic client for the test server, without retries so every request is visible. */
export function anthropicClient(): Anthropic {
  return new Anthropic({ apiKey: "sk-ant-test", baseURL: inject("anthropicUrl"), maxRetries: 0 });
}
