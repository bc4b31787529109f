/**
 * @module test/model
 * The workerd side of the test model provider (test/scenario-server.ts):
 * registering a scenario, reading what the server received, and an `openai`
 * client pointed at it. (The Anthropic client is test/anthropic-model.ts: a
 * test file loads only the SDK it needs.)
 */

import type { Scenario } from "@condense/test-servers";
import OpenAI from "openai";
import { inject } from "vitest";
import type { LogEntry } from "./scenario-server.js";

export type { LogEntry, Scenario };

/** The test provider's origin. */
export function modelUrl(): string {
  return inject("modelUrl");
}

/** Registers `scenario` (`POST /scenarios` carries it); requests whose `model` is its name follow it. */
export async function registerScenario(scenario: Scenario): Promise<void> {
  const response = await fetch(`${modelUrl()}/scenarios`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(scenario),
  });
  if (!response.ok)
    throw new Error(`registering scenario ${scenario.name} failed: ${response.status}`);
}

/** Every request the server received for scenario `name`, in order. */
export async function serverLog(name: string): Promise<LogEntry[]> {
  const response = await fetch(`${modelUrl()}/scenarios/${encodeURIComponent(name)}/log`);
  return (await response.json()) as LogEntry[];
}

/** An `openai` client for the test server; its own retries are off so every request is visible. */
export function openaiClient(): OpenAI {
  return new OpenAI({ apiKey: "sk-test-model", baseURL: `${modelUrl()}/v1`, maxRetries: 0 });
}
