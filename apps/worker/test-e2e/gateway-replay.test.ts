/**
 * The gateway under `wrangler dev`, driven over HTTP by the official `openai`
 * and `@anthropic-ai/sdk` clients, unmodified but for their base URL and
 * default headers, against the test upstream (started here).
 *
 * The replay: a real agent transcript from `@condense/test-fixtures` is
 * sent turn by turn with its whole history, as an agent does, to an upstream
 * that refuses anything over a small window, and answers each turn with the
 * transcript's next assistant message. No request may reach the upstream over
 * the window, none may be refused, every context sent must be valid, and the
 * session's transcript must be the conversation replayed.
 */

import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Anthropic from "@anthropic-ai/sdk";
import { type ChatMessage, parseMessages, validateMessages } from "@condense/core";
import { TRANSCRIPTS_DIR } from "@condense/test-fixtures/transcripts";
import { scenarioHeaders } from "@condense/test-servers";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalContent } from "../src/messages/history-hash.ts";
import { type GatewayUpstream, startGatewayUpstream } from "../test/support/gateway-upstream.ts";
import { apiAs, ok } from "./api.ts";
import { type DevServer, startWranglerDev } from "./wrangler-dev.ts";

const workerDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const FIXTURE = join(TRANSCRIPTS_DIR, "mini-swe-agent__django__django-11910.json");
const KEY = "alice-gateway-e2e-5c1e";
const WINDOW = 32_000;

let upstream: GatewayUpstream;
let server: DevServer;

beforeAll(async () => {
  upstream = await startGatewayUpstream();
  server = await startWranglerDev({
    workerDir,
    vars: {
      API_KEYS: `alice:${KEY}`,
      COMPACTION_DELAY_MS: "0",
      GATEWAY_UPSTREAMS: `up=${upstream.origin}/v1`,
      GATEWAY_KEY_UP: "sk-up-deployment",
      ANTHROPIC_BASE_URL: upstream.origin,
      ANTHROPIC_API_KEY: "sk-ant-deployment",
    },
  });
});

afterAll(async () => {
  await server?.stop();
  await upstream?.close();
});

function openai(tag: string, headers: Record<string, string>): OpenAI {
  return new OpenAI({
    baseURL: `${server.baseUrl}/v1/gateway/up`,
    apiKey: KEY,
    defaultHeaders: { ...scenarioHeaders({ name: tag }), ...headers },
    maxRetries: 0,
  });
}

/** A message as the transcript and the history both say it (what the gateway matches by). */
const said = (message: ChatMessage) => canonicalContent(message);

describe("a corpus transcript replayed through the gateway", () => {
  it("never sends the upstream more than its window, is never refused, and stores the conversation", async () => {
    const { messages: raw } = JSON.parse(readFileSync(FIXTURE, "utf8")) as { messages: unknown[] };
    const conversation = parseMessages(raw);
    const session = `replay-${Date.now()}`;
    const tag = `replay-${session}`;
    const answers = conversation.filter((message) => message.role === "assistant");
    await fetch(`${upstream.origin}/control/answers`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ tag, answers }),
    });
    const client = openai(tag, {
      "X-Condense-Session": session,
      "X-Condense-Context-Window": String(WINDOW),
      ...scenarioHeaders({ name: tag, limit: WINDOW }),
    });

    let turns = 0;
    const generations = new Set<string | null>();
    for (const [index, message] of conversation.entries()) {
      if (message.role !== "assistant") continue;
      // The agent sends everything before the model's next answer.
      const history = raw.slice(0, index) as OpenAI.Chat.Completions.ChatCompletionMessageParam[];
      const reply = await client.chat.completions
        .create({ model: "gpt-4o", messages: history })
        .withResponse();
      const answer = reply.data.choices[0]?.message;
      expect(said(parseMessages([answer])[0] as ChatMessage)).toBe(said(message));
      generations.add(reply.response.headers.get("X-Condense-Generation"));
      turns++;
    }
    expect(turns).toBe(answers.length);
    expect(generations).toEqual(new Set(["1"]));

    const calls = upstream.calls(tag);
    expect(calls).toHaveLength(turns);
    for (const [turn, received] of calls.entries()) {
      expect(received.tokens, `turn ${turn + 1}`).toBeLessThanOrEqual(WINDOW);
      const sent = parseMessages(received.body?.messages);
      expect(validateMessages(sent, "openai").ok, `turn ${turn + 1}`).toBe(true);
    }
    // The context was compacted along the way: the last turns carried far less than the history.
    expect(calls.at(-1)?.tokens ?? 0).toBeLessThan(WINDOW);

    const call = apiAs(server.baseUrl, KEY);
    const stored: ChatMessage[] = [];
    let after = 0;
    for (;;) {
      const page = await ok(
        call<{ messages: Array<{ message: ChatMessage }>; nextAfter: number | null }>(
          "GET",
          `/v1/sessions/${session}/transcript?after=${after}&limit=1000`,
        ),
        "transcript",
      );
      stored.push(...page.messages.map((entry) => entry.message));
      if (page.nextAfter === null) break;
      after = page.nextAfter;
    }
    // The whole conversation: every message before the last answer, and the last answer.
    expect(stored.map(said)).toEqual(conversation.slice(0, stored.length).map(said));
    const lastAnswer = conversation.findLastIndex((message) => message.role === "assistant");
    expect(stored).toHaveLength(lastAnswer + 1);
    const status = await ok(
      call<{ compactions: number }>("GET", `/v1/sessions/${session}`),
      "status",
    );
    expect(status.compactions).toBeGreaterThan(0);
  });
});

describe("the Anthropic SDK under wrangler dev", () => {
  it("streams an answer through and stores it", async () => {
    const session = `anthropic-${Date.now()}`;
    const client = new Anthropic({
      baseURL: `${server.baseUrl}/v1/gateway/anthropic`,
      apiKey: KEY,
      defaultHeaders: { "X-Condense-Session": session, ...scenarioHeaders({ name: session }) },
      maxRetries: 0,
    });
    const message = await client.messages
      .stream({
        model: "claude-sonnet-5-5",
        max_tokens: 256,
        messages: [{ role: "user", content: "Say hello." }],
      })
      .finalMessage();
    expect(message.content[0]).toMatchObject({
      type: "text",
      text: expect.stringMatching(/^Answer/),
    });
    const call = apiAs(server.baseUrl, KEY);
    for (let attempt = 0; attempt < 80; attempt++) {
      const page = await ok(
        call<{ messages: unknown[] }>("GET", `/v1/sessions/${session}/transcript`),
        "transcript",
      );
      if (page.messages.length === 2) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error("the streamed answer was not stored");
  });
});
