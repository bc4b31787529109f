/**
 * @module test/support/gateway-helpers
 * What the gateway tests share: the official `openai` and `@anthropic-ai/sdk`
 * clients pointed at the Worker (`SELF.fetch` as their `fetch`), unmodified but
 * for their base URL and default headers, and the test upstream's records.
 */

import { env, SELF } from "cloudflare:test";
import Anthropic from "@anthropic-ai/sdk";
import { type ScenarioFields, scenarioHeaders } from "@condense/test-servers";
import OpenAI from "openai";
import type { RecordedCall } from "./gateway-upstream";
import { BASE, TOKENS } from "./helpers";

export interface ClientOptions {
  /** Condense user whose key goes in `X-Condense-Key` (default alice); null sends none. */
  as?: string | null;
  session?: string;
  /** How the test upstream treats the client's requests; the scenario's name is the tag. */
  scenario?: ScenarioFields;
  /** The provider key the client sends (`Authorization` / `x-api-key`). */
  providerKey?: string;
  headers?: Record<string, string>;
  /** A fetch other than the Worker's (e.g. the app with other bindings). */
  fetch?: typeof fetch;
}

/** A fresh tag for the test upstream's records. */
export function freshTag(): string {
  return `t-${crypto.randomUUID()}`;
}

function headersFor(tag: string, options: ClientOptions): Record<string, string> {
  const user = options.as === undefined ? "alice" : options.as;
  return {
    ...scenarioHeaders({ ...options.scenario, name: tag }),
    ...(user !== null ? { "X-Condense-Key": TOKENS[user] ?? user } : {}),
    ...(options.session !== undefined ? { "X-Condense-Session": options.session } : {}),
    ...options.headers,
  };
}

const workerFetch: typeof fetch = (input, init) => SELF.fetch(input, init);

/** The `openai` SDK against the gateway's upstream `upstream` (default `up`, the test upstream). */
export function openaiClient(tag: string, options: ClientOptions = {}, upstream = "up"): OpenAI {
  return new OpenAI({
    baseURL: `${BASE}/v1/gateway/${upstream}`,
    apiKey: options.providerKey ?? "sk-caller-openai",
    defaultHeaders: headersFor(tag, options),
    maxRetries: 0,
    fetch: options.fetch ?? workerFetch,
  });
}

/** The Anthropic SDK against the gateway's upstream `anthropic` (the test upstream). */
export function anthropicClient(tag: string, options: ClientOptions = {}): Anthropic {
  return new Anthropic({
    baseURL: `${BASE}/v1/gateway/anthropic`,
    apiKey: options.providerKey ?? "sk-ant-caller",
    defaultHeaders: headersFor(tag, options),
    maxRetries: 0,
    fetch: options.fetch ?? workerFetch,
  });
}

/** What the test upstream received for `tag`, in order. */
export async function upstreamCalls(tag: string): Promise<RecordedCall[]> {
  const response = await fetch(
    `${env.TEST_GATEWAY_UPSTREAM_URL}/control/requests?tag=${encodeURIComponent(tag)}`,
  );
  return (await response.json()) as RecordedCall[];
}

/** Queues the answers (canonical assistant messages) the test upstream gives `tag`'s requests, in order. */
export async function queueAnswers(tag: string, answers: unknown[]): Promise<void> {
  await fetch(`${env.TEST_GATEWAY_UPSTREAM_URL}/control/answers`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tag, answers }),
  });
}

/** Lets the test upstream answer `tag`'s requests whose scenario has `hold` (and every later one). */
export async function releaseHeld(tag: string): Promise<void> {
  await fetch(`${env.TEST_GATEWAY_UPSTREAM_URL}/control/release?tag=${encodeURIComponent(tag)}`, {
    method: "POST",
  });
}
