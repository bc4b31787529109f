/**
 * Anthropic's cache diagnostics, asked for by the gateway (issue 32, build 3): with the session's
 * setting `cacheDiagnostics` on, each Anthropic request the gateway sends opts in with
 * `diagnostics.previous_message_id`, null on the first such turn and the id of the last answer to
 * an opted-in request after; the test upstream compares the two requests as Anthropic does
 * (`platform.claude.com/docs/en/build-with-claude/cache-diagnostics`) and refuses a malformed
 * opt-in. Its `cache_miss_reason` is recorded on the turn. Off (the default), nothing is added; a
 * client's own `diagnostics` go as it sent them.
 */

import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import type { CompactionsResponseBody } from "../../src/api/schemas";
import { anthropicClient, freshTag, upstreamCalls } from "../support/gateway-helpers";
import { call, freshSession, waitFor } from "../support/helpers";

const report = async (id: string) =>
  (await call<CompactionsResponseBody>("GET", `/v1/sessions/${id}/compactions`)).body;

const TOOL = {
  name: "read_file",
  description: "Read a file.",
  input_schema: { type: "object" as const, properties: { path: { type: "string" } } },
};

async function patch(session: string, settings: Record<string, unknown>): Promise<void> {
  const reply = await call("PATCH", `/v1/sessions/${session}`, { body: settings });
  expect(reply.status).toBe(200);
}

describe("cache diagnostics the gateway asks Anthropic for (setting cacheDiagnostics)", () => {
  it("opts in with null, then the previous answer's id, and records the reason Anthropic gives", async () => {
    const tag = freshTag();
    const session = freshSession("gw-diagnostics");
    const client = anthropicClient(tag, { session });
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "What does it do?" }];
    const request = (extra: Partial<Anthropic.MessageCreateParams> = {}) => ({
      model: "claude-sonnet-4-5",
      max_tokens: 256,
      system: "Be brief.",
      tools: [TOOL],
      messages: [...messages],
      ...extra,
    });
    const turn = async (text: string, extra: Partial<Anthropic.MessageCreateParams> = {}) => {
      const answer = await client.messages.create(request(extra) as never);
      const message = answer as Anthropic.Message;
      messages.push({ role: "assistant", content: message.content as never });
      messages.push({ role: "user", content: text });
      return message;
    };

    // Off by default: the first turn goes without an opt-in.
    await turn("And then?");
    await patch(session, { cacheDiagnostics: true });
    const second = await turn("Which files?");
    // Streamed: the id comes with `message_start`.
    const streamed = await client.messages.stream(request()).finalMessage();
    messages.push({ role: "assistant", content: streamed.content as never });
    messages.push({ role: "user", content: "Now read one." });
    // A tool more: the prefix Anthropic cached is gone.
    await turn("Done?", { tools: [TOOL, { ...TOOL, name: "list_files" }] });
    await waitFor(async () => (await report(session)).bill.measuredTurns === 4, "the usage");

    const sent = (await upstreamCalls(tag)).map((recorded) => recorded.body?.diagnostics);
    expect(sent).toEqual([
      undefined,
      { previous_message_id: null },
      { previous_message_id: second.id },
      { previous_message_id: streamed.id },
    ]);
    expect(second.id).toMatch(/^msg_/);
    expect(streamed.id).not.toBe(second.id);
    const { costSeries } = await report(session);
    expect(costSeries.map((point) => point.cacheMiss?.reason ?? null)).toEqual([
      null,
      null,
      null,
      "tools_changed",
    ]);
    expect(costSeries[3]?.cacheMiss?.missedTokens).toBeGreaterThan(0);
  });

  it("forwards a client's own diagnostics as it sent them, and the upstream refuses a malformed one in Anthropic's shape", async () => {
    const tag = freshTag();
    const session = freshSession("gw-diagnostics-own");
    const client = anthropicClient(tag, { session });
    const base = {
      model: "claude-sonnet-4-5",
      max_tokens: 256,
      messages: [{ role: "user" as const, content: "Hello?" }],
    };
    await client.messages.create(base);
    await patch(session, { cacheDiagnostics: true });
    const own = {
      ...base,
      messages: [
        ...base.messages,
        { role: "assistant" as const, content: "Answer 1" },
        { role: "user" as const, content: "Again?" },
      ],
      diagnostics: { previous_message_id: "msg_client_kept" },
    };
    const answer = await client.messages.create(own);
    expect(answer.diagnostics).toEqual({
      cache_miss_reason: { type: "previous_message_not_found" },
    });
    const malformed = client.messages.create({
      ...own,
      diagnostics: { previous_message_id: 7 },
    } as never);
    await expect(malformed).rejects.toMatchObject({
      status: 400,
      error: {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "diagnostics.previous_message_id: Input should be a valid string",
        },
      },
    });
    const sent = (await upstreamCalls(tag)).map((recorded) => recorded.body?.diagnostics);
    expect(sent.slice(1)).toEqual([
      { previous_message_id: "msg_client_kept" },
      { previous_message_id: 7 },
    ]);
  });
});
