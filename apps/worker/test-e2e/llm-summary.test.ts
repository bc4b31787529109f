/**
 * The LLM summarizer in the Worker as `wrangler` bundles it for deployment (the workerd tests
 * read the sources through vite and do not see wrangler.jsonc's `alias`es): the bundle leaves
 * out the openai SDK's stream helpers (src/openai-stream-helpers.ts), so this proves that a
 * summary and a memory flush still go through the SDK, streamed and not, and reach the model.
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { scenarioModel } from "@condense/test-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LlmServers, startLlmServers } from "../test/support/llm-server.ts";
import { apiAs, ok } from "./api.ts";
import { type DevServer, startWranglerDev } from "./wrangler-dev.ts";

const workerDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const KEY = "alice-llm-summary-e2e-7b2d";

let llm: LlmServers;
let server: DevServer;

beforeAll(async () => {
  llm = await startLlmServers();
  server = await startWranglerDev({
    workerDir,
    vars: {
      API_KEYS: `alice:${KEY}`,
      COMPACTION_DELAY_MS: "0",
      SUMMARIZER_BASE_URL: llm.chatUrl,
      SUMMARIZER_API_KEY: "sk-test-summarizer",
    },
  });
});

afterAll(async () => {
  await server?.stop();
  await llm?.close();
});

/** Prose that tool stripping cannot shrink, so compaction needs the summarizer. */
function prose(turns: number): Array<{ role: string; content: string }> {
  const words = ["migration", "cluster", "rollback", "latency", "schema", "cutover", "replica"];
  const messages = [
    { role: "system", content: "You are a planning assistant." },
    { role: "user", content: "Plan the migration of the billing service to the new cluster." },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const text = Array.from({ length: 250 }, (_, i) => words[(i * 3 + turn) % words.length]);
    messages.push({ role: "assistant", content: `Turn ${turn}: ${text.join(" ")}` });
    messages.push({ role: "user", content: `Go on with step ${turn + 1}; prefer pnpm over npm.` });
  }
  return messages;
}

interface CompactReply {
  compacted: boolean;
  event?: { summarizer?: string; summarizerFailure?: unknown; tier?: number };
}

async function summarizedSession(
  summarizerModel: string,
  settings: Record<string, unknown> = {},
): Promise<CompactReply> {
  const api = apiAs(server.baseUrl, KEY);
  const id = `llm-e2e-${crypto.randomUUID()}`;
  await ok(
    api("POST", `/v1/sessions/${id}/messages`, { messages: prose(20), model: "gpt-4o" }),
    "append",
  );
  await ok(
    api("PATCH", `/v1/sessions/${id}`, {
      contextWindow: 100_000,
      tailTokens: 1_500,
      summarizerModel,
      ...settings,
    }),
    "settings",
  );
  return ok(api<CompactReply>("POST", `/v1/sessions/${id}/compact`, {}), "compact");
}

async function requestsFor(model: string): Promise<number> {
  const response = await fetch(`${llm.controlUrl}/requests?model=${encodeURIComponent(model)}`);
  return ((await response.json()) as { count: number }).count;
}

describe("the deployed bundle's LLM summarizer", () => {
  it("summarizes through the openai SDK", async () => {
    const model = scenarioModel({ name: `bundle-summary-${crypto.randomUUID()}` });
    const reply = await summarizedSession(model);
    expect(reply.compacted).toBe(true);
    // The LLM wrote the summary: had the SDK failed, a deterministic tier would have, naming why.
    expect(reply.event?.summarizerFailure).toBeNull();
    expect(reply.event?.summarizer).toBe("llm");
    expect(await requestsFor(model)).toBeGreaterThan(0);
  });

  it("runs the memory flush's tool calls through the openai SDK", async () => {
    const model = scenarioModel({ name: `bundle-memory-${crypto.randomUUID()}`, memory: true });
    const reply = await summarizedSession(model, { memory: true });
    expect(reply.event?.summarizerFailure).toBeNull();
    expect(reply.event?.summarizer).toBe("llm");
    // The flush (a request offering the `memory` tool) and the summary both reached the model.
    expect(await requestsFor(model)).toBeGreaterThanOrEqual(2);
  });

  it("names the deterministic tier as the summarizer when the model fails, and the model's failure", async () => {
    const model = scenarioModel({ name: `bundle-failing-${crypto.randomUUID()}`, fail: 500 });
    const reply = await summarizedSession(model);
    expect(reply.compacted).toBe(true);
    expect(reply.event).toMatchObject({
      tier: 4,
      summarizer: "extractive",
      summarizerFailure: { kind: "server_error" },
    });
    expect(await requestsFor(model)).toBeGreaterThan(0);
  });
});
