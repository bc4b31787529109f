/**
 * OpenAI's explicit cache breakpoints (issue 32, build 3): on the models that take them (GPT-5.6 and
 * later: the catalog prices their cache writes), the gateway marks, as on Anthropic, the end of the
 * head and the summary of a compacted context with `prompt_cache_breakpoint`, so the turn after
 * the next compaction reads the head from the cache (these models match a cached prefix only at a
 * breakpoint). Two marks: within the three explicit breakpoints a request writes beside the
 * implicit one. Earlier models get none (the test upstream refuses the field on them, as OpenAI
 * does), and the cache writes these models report (`cache_write_tokens`) are billed.
 * developers.openai.com/api/docs/guides/prompt-caching
 */

import { fromCanonical, parseMessages, SUMMARY_OPEN } from "@condense/core";
import { writtenBreakpoints } from "@condense/test-servers";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { CompactionsResponseBody } from "../../src/api/schemas";
import { freshTag, openaiClient, upstreamCalls } from "../support/gateway-helpers";
import { call, freshSession, toolStep, waitFor } from "../support/helpers";

type ChatParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type Entry = { role?: string; content?: unknown };
type Part = Record<string, unknown>;

const history = (steps: number) =>
  [
    { role: "system", content: "You are a careful coding agent." },
    { role: "user", content: "Fix the build." },
    ...Array.from({ length: steps }, (_, i) => toolStep(i + 1)).flat(),
  ] as unknown as ChatParam[];

const textOf = (entry: Entry | undefined): string =>
  typeof entry?.content === "string"
    ? entry.content
    : Array.isArray(entry?.content)
      ? (entry.content as Part[]).map((part) => String(part.text ?? "")).join("")
      : "";

/** Where the upstream request carries `prompt_cache_breakpoint`: entry and part. */
function breakpoints(entries: Entry[]): Array<{ message: number; part: number }> {
  return entries.flatMap((entry, message) =>
    Array.isArray(entry.content)
      ? (entry.content as Part[]).flatMap((part, index) =>
          part.prompt_cache_breakpoint !== undefined ? [{ message, part: index }] : [],
        )
      : [],
  );
}

/** The summary's entry, and the last entry before it that is not the model's (the head's end). */
function summaryAndHead(entries: Entry[]): { summary: number; head: number } {
  const summary = entries.findIndex(
    (entry) => entry.role === "user" && textOf(entry).trimStart().startsWith(SUMMARY_OPEN),
  );
  let head = summary - 1;
  while (head >= 0 && !["system", "developer", "user"].includes(String(entries[head]?.role))) {
    head--;
  }
  return { summary, head };
}

const report = async (id: string) =>
  (await call<CompactionsResponseBody>("GET", `/v1/sessions/${id}/compactions`)).body;

/** Two Chat turns of a session in a 9k window: the first compacts. The upstream's bodies. */
async function chatTurns(model: string, session = freshSession("gw-openai-bp")) {
  const tag = freshTag();
  const client = openaiClient(tag, {
    session,
    headers: { "X-Condense-Context-Window": "9000" },
    scenario: { cache: { read: 0, write: 2_000 } },
  });
  const messages = history(24);
  for (const text of ["Go on.", "And the tests?"]) {
    messages.push({ role: "user", content: text });
    const reply = await client.chat.completions.create({ model, messages });
    messages.push({ role: "assistant", content: reply.choices[0]?.message.content ?? "" });
  }
  return (await upstreamCalls(tag)).map((entry) => entry.body ?? {});
}

describe("OpenAI's explicit cache breakpoints", () => {
  it("Chat, GPT-5.6: marks the end of the head and the summary, the same on every turn, all of them written", async () => {
    const bodies = await chatTurns("gpt-5.6");
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      const messages = body.messages as Entry[];
      const { summary, head } = summaryAndHead(messages);
      expect(summary).toBeGreaterThan(0);
      expect(head).toBeGreaterThanOrEqual(0);
      const marked = breakpoints(messages);
      expect(marked.map((at) => at.message)).toEqual([head, summary]);
      for (const at of marked) {
        const parts = (messages[at.message]?.content ?? []) as Part[];
        expect(at.part).toBe(parts.length - 1);
        expect(parts[at.part]?.prompt_cache_breakpoint).toEqual({ mode: "explicit" });
      }
      // Within what a request writes: OpenAI writes every one of them.
      expect(writtenBreakpoints(body, "chat")).toEqual(marked);
    }
    const leading = (body: Record<string, unknown> | undefined) =>
      JSON.stringify(((body?.messages ?? []) as Entry[]).slice(0, 3));
    expect(leading(bodies[1])).toBe(leading(bodies[0]));
  });

  it("Chat, before GPT-5.6: adds none (OpenAI refuses the field there)", async () => {
    const bodies = await chatTurns("gpt-5.5");
    expect(bodies).toHaveLength(2);
    expect(summaryAndHead(bodies[0]?.messages as Entry[]).summary).toBeGreaterThan(0);
    for (const body of bodies) expect(breakpoints(body.messages as Entry[])).toEqual([]);
  });

  it("Responses, GPT-5.6: marks the head's end and the summary on input parts", async () => {
    const tag = freshTag();
    const client = openaiClient(tag, {
      session: freshSession("gw-openai-bp"),
      headers: { "X-Condense-Context-Window": "9000" },
    });
    const input = fromCanonical(parseMessages(history(24)), "responses").messages as unknown[];
    input.push({ role: "user", content: "Go on." });
    await client.responses.create({ model: "gpt-5.6", input } as never);
    const [body] = (await upstreamCalls(tag)).map((entry) => entry.body ?? {});
    const items = body?.input as Entry[];
    const { summary, head } = summaryAndHead(items);
    expect(summary).toBeGreaterThan(0);
    expect(breakpoints(items).map((at) => at.message)).toEqual([head, summary]);
    expect(writtenBreakpoints(body ?? {}, "responses")).toHaveLength(2);
  });

  it("bills the cache writes GPT-5.6 reports, and none for a model that writes without a premium", async () => {
    const writing = freshSession("gw-openai-writes");
    await chatTurns("gpt-5.6", writing);
    await waitFor(async () => (await report(writing)).bill.measuredTurns === 2, "the usage");
    expect((await report(writing)).bill.reported?.cacheWriteTokens).toBe(4_000);
    const older = freshSession("gw-openai-writes");
    await chatTurns("gpt-5.5", older);
    await waitFor(async () => (await report(older)).bill.measuredTurns === 2, "the usage");
    expect((await report(older)).bill.reported?.cacheWriteTokens).toBe(0);
  });
});
