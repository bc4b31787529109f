/**
 * Summaries through the cache (issue 32, build 1): with the setting `cachedSummaries` on, the
 * compaction a gateway turn leaves due is summarized by the session's own upstream model, its
 * request the turn's request again, byte for byte (system, tools, messages, cache markers), with
 * the summary instruction as the last user turn; the upstream (scripted with `prefixCache`, a
 * provider's prompt cache) reads the whole turn's prompt from its cache, and the compaction
 * records what the summary cost as the provider counted it. A summary request that fails its
 * checks falls to the next tier; without the setting no summary request is made.
 */

import type Anthropic from "@anthropic-ai/sdk";
import { parseMessages, SUMMARY_SECTIONS, toAnthropic } from "@condense/core";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { CompactionsResponseBody } from "../../src/api/schemas";
import {
  anthropicClient,
  freshTag,
  openaiClient,
  queueAnswers,
  upstreamCalls,
} from "../support/gateway-helpers";
import { call, compactions, freshSession, prose, status, waitFor } from "../support/helpers";

const MARKER = { type: "ephemeral" } as const;
const SUMMARY = SUMMARY_SECTIONS.map(
  (section) => `## ${section}\nThe migration of the API cluster, part ${section.length}.`,
).join("\n\n");
/** 40k window, trigger at a quarter of it, a roomy budget: a long turn leaves a compaction due, not forced. */
const SETTINGS = {
  contextWindow: 40_000,
  policy: "window",
  threshold: 0.25,
  reserveTokens: 4_000,
  tailTokens: 1_500,
};

type Body = Record<string, unknown>;
type Turn = { role: string; content: unknown };

async function patch(session: string, settings: Record<string, unknown>): Promise<void> {
  const reply = await call("PATCH", `/v1/sessions/${session}`, { body: settings });
  expect(reply.status).toBe(200);
}

/** Prose the engine cannot prune (so the compaction needs a summary), in Anthropic's form, without its system. */
function anthropicProse(turns: number): Anthropic.Messages.MessageParam[] {
  return toAnthropic(parseMessages(prose(turns).slice(1))).messages as Anthropic.MessageParam[];
}

/** The instruction appended last: a user turn that asks for the template, whatever its shape. */
function instructionText(turn: Turn | undefined): string {
  const content = turn?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

describe("summaries through the cache", () => {
  it("Anthropic: the summary request is the last turn's request with the instruction appended, read from the cache", async () => {
    const tag = freshTag();
    const session = freshSession("gw-cached-summary");
    const client = anthropicClient(tag, { session, scenario: { prefixCache: true } });
    const system = [
      { type: "text", text: "You are a careful planning agent.", cache_control: MARKER },
    ];
    const tools = [
      {
        name: "read_file",
        description: "Read a file.",
        input_schema: { type: "object", properties: { path: { type: "string" } } },
      },
    ];
    const send = (messages: Anthropic.MessageParam[]) =>
      client.messages.create({
        model: "claude-sonnet-4-5",
        max_tokens: 512,
        system,
        tools,
        messages,
      } as never) as Promise<Anthropic.Message>;
    const history = anthropicProse(40);
    // The first turn creates the session: two messages, nothing to compact.
    await send(history.slice(0, 1));
    await patch(session, { ...SETTINGS, cachedSummaries: true });
    await queueAnswers(tag, [
      { role: "assistant", content: "Noted: part 41 next." },
      { role: "assistant", content: SUMMARY },
    ]);
    await send(history);
    await waitFor(async () => (await compactions(session)).length === 1, "the compaction");

    const calls = await upstreamCalls(tag);
    expect(calls).toHaveLength(3);
    const turn = calls[1]?.body as Body;
    const summary = calls[2]?.body as Body;
    const turnMessages = turn.messages as Turn[];
    const summaryMessages = summary.messages as Turn[];
    // Byte for byte up to the instruction: the fields, the messages and their markers.
    for (const field of ["model", "system", "tools", "max_tokens"]) {
      expect(JSON.stringify(summary[field])).toBe(JSON.stringify(turn[field]));
    }
    expect(summaryMessages).toHaveLength(turnMessages.length + 1);
    expect(JSON.stringify(summaryMessages.slice(0, turnMessages.length))).toBe(
      JSON.stringify(turnMessages),
    );
    const last = summaryMessages.at(-1);
    expect(last?.role).toBe("user");
    for (const section of SUMMARY_SECTIONS)
      expect(instructionText(last)).toContain(`## ${section}`);
    expect(summary.stream).not.toBe(true);

    // The upstream read the turn's whole prompt from its cache; the compaction says so.
    const [event] = await compactions(session);
    expect(event?.summarizer).toBe("llm");
    expect(event?.summary).toContain("The migration of the API cluster");
    expect(event?.summaryUsage).toEqual({
      inputTokens: calls[2]?.tokens,
      cacheReadTokens: calls[1]?.tokens,
      cacheWriteTokens: 0,
      outputTokens: 7,
    });
    expect(calls[1]?.tokens ?? 0).toBeGreaterThan(10_000);
    // The bill shows what the summary cost: the prompt at the read price, the rest in full.
    const bill = (await call<CompactionsResponseBody>("GET", `/v1/sessions/${session}/compactions`))
      .body.bill;
    expect(bill.summaries).toMatchObject({
      count: 1,
      cacheReadTokens: calls[1]?.tokens,
      inputTokens: calls[2]?.tokens,
    });
    const read = calls[1]?.tokens ?? 0;
    const rest = (calls[2]?.tokens ?? 0) - read;
    // Sonnet: reads at 0.1, output at 5 × the input price.
    expect(bill.summaries.costTokens).toBeCloseTo(read * 0.1 + rest + 7 * 5, 6);
  });

  it("Chat Completions: the same, in the protocol's own messages", async () => {
    const tag = freshTag();
    const session = freshSession("gw-cached-summary-chat");
    const client = openaiClient(tag, { session, scenario: { prefixCache: true } });
    const messages = prose(40) as unknown as OpenAI.Chat.ChatCompletionMessageParam[];
    await client.chat.completions.create({ model: "gpt-4o", messages: messages.slice(0, 2) });
    await patch(session, { ...SETTINGS, cachedSummaries: true });
    await queueAnswers(tag, [
      { role: "assistant", content: "Noted." },
      { role: "assistant", content: SUMMARY },
    ]);
    await client.chat.completions.create({ model: "gpt-4o", messages });
    await waitFor(async () => (await compactions(session)).length === 1, "the compaction");
    const calls = await upstreamCalls(tag);
    expect(calls).toHaveLength(3);
    const turn = ((calls[1]?.body ?? {}) as Body).messages as Turn[];
    const summary = ((calls[2]?.body ?? {}) as Body).messages as Turn[];
    expect(JSON.stringify(summary.slice(0, turn.length))).toBe(JSON.stringify(turn));
    expect(summary.at(-1)?.role).toBe("user");
    const [event] = await compactions(session);
    expect(event?.summaryUsage?.cacheReadTokens).toBe(calls[1]?.tokens);
  });

  it("falls to the next tier when the upstream's answer is no summary", async () => {
    const tag = freshTag();
    const session = freshSession("gw-cached-summary-fails");
    const client = openaiClient(tag, { session, scenario: { prefixCache: true } });
    const messages = prose(40) as unknown as OpenAI.Chat.ChatCompletionMessageParam[];
    await client.chat.completions.create({ model: "gpt-4o", messages: messages.slice(0, 2) });
    await patch(session, { ...SETTINGS, cachedSummaries: true });
    // Not queued: the upstream answers "Answer N", twice (the retry that names the sections).
    await client.chat.completions.create({ model: "gpt-4o", messages });
    await waitFor(async () => (await compactions(session)).length === 1, "the compaction");
    const [event] = await compactions(session);
    expect({ tier: event?.tier, failure: event?.summarizerFailure?.kind }).toEqual({
      tier: 4,
      failure: "missing_sections",
    });
    expect(event?.summary).not.toContain("Answer");
    expect((await upstreamCalls(tag)).length).toBeGreaterThanOrEqual(4);
  });

  it("sends no summary request without the setting: the compaction stays the alarm's", async () => {
    const tag = freshTag();
    const session = freshSession("gw-cached-summary-off");
    const client = openaiClient(tag, { session, scenario: { prefixCache: true } });
    const messages = prose(40) as unknown as OpenAI.Chat.ChatCompletionMessageParam[];
    await client.chat.completions.create({ model: "gpt-4o", messages: messages.slice(0, 2) });
    await patch(session, SETTINGS);
    await client.chat.completions.create({ model: "gpt-4o", messages });
    // The answer is stored after the response: wait for it, then for anything that would follow it.
    await waitFor(async () => (await status(session)).messageCount > messages.length, "the answer");
    expect(await upstreamCalls(tag)).toHaveLength(2);
    expect(await compactions(session)).toHaveLength(0);
  });
});
