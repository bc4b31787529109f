/**
 * OpenAI's explicit cache breakpoints (issue 32, build 3): on the models that take them (GPT-5.6 and
 * later: the catalog prices their cache writes), the gateway marks, as on Anthropic, the end of the
 * head and the summary of a compacted context with `prompt_cache_breakpoint`, so the turn after
 * the next compaction reads the head from the cache (these models match a cached prefix only at a
 * breakpoint). The client's own breakpoints on the messages still sent as they were stay, four at
 * most in all (the client's newest, the summary's, the client's others, the head's), and the
 * summary is the one the session wrote, never a message that opens like one. Earlier models get
 * none (the test upstream refuses the field on them, as OpenAI does), and the cache writes these
 * models report (`cache_write_tokens`) are billed.
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

const BREAKPOINT = { mode: "explicit" } as const;

/** `message` with a breakpoint on its last content part (string content becomes one text part). */
function marked(message: ChatParam): ChatParam {
  const content = message.content;
  const parts = (
    typeof content === "string" ? [{ type: "text", text: content }] : content
  ) as Part[];
  const last = parts.length - 1;
  return {
    ...message,
    content: parts.map((part, index) =>
      index === last ? { ...part, prompt_cache_breakpoint: BREAKPOINT } : part,
    ),
  } as unknown as ChatParam;
}

/**
 * Chat turns of a session in a 9k window (the first compacts), each sent with the client's own
 * breakpoints on the messages `marks` names (indexes of the history as sent). The upstream's bodies.
 */
async function markedChatTurns(
  turns: string[],
  marks: (messages: ChatParam[], turn: number) => number[],
  start: ChatParam[] = history(24),
) {
  const tag = freshTag();
  const client = openaiClient(tag, {
    session: freshSession("gw-openai-bp"),
    headers: { "X-Condense-Context-Window": "9000" },
  });
  const messages = [...start];
  for (const [turn, text] of turns.entries()) {
    messages.push({ role: "user", content: text });
    const at = new Set(marks(messages, turn));
    const sent = messages.map((message, index) => (at.has(index) ? marked(message) : message));
    const reply = await client.chat.completions.create({ model: "gpt-5.6", messages: sent });
    messages.push({ role: "assistant", content: reply.choices[0]?.message.content ?? "" });
  }
  return (await upstreamCalls(tag)).map((entry) => entry.body ?? {});
}

/** The index of the first upstream message whose text is `text`. */
const indexOf = (entries: Entry[], text: string) =>
  entries.findIndex((entry) => textOf(entry) === text);

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

  it("Chat, GPT-5.6: keeps the client's own breakpoints on the messages it still sends as they were, beside the head's and the summary's", async () => {
    // The client marks its system prompt (its own stable prefix) and its newest message.
    const bodies = await markedChatTurns(["Go on.", "And the tests?"], (messages) => [
      0,
      messages.length - 1,
    ]);
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      const messages = body.messages as Entry[];
      const { summary, head } = summaryAndHead(messages);
      expect(summary).toBeGreaterThan(0);
      expect(head).toBeGreaterThan(0);
      const marked = breakpoints(messages);
      expect(marked.map((at) => at.message)).toEqual([0, head, summary, messages.length - 1]);
      for (const at of marked) {
        expect(
          ((messages[at.message]?.content ?? []) as Part[])[at.part]?.prompt_cache_breakpoint,
        ).toEqual(BREAKPOINT);
      }
    }
    // The system prompt is sent as the client sent it, its breakpoint included.
    expect(((bodies[1]?.messages ?? []) as Entry[])[0]).toEqual({
      role: "system",
      content: [
        {
          type: "text",
          text: "You are a careful coding agent.",
          prompt_cache_breakpoint: BREAKPOINT,
        },
      ],
    });
  });

  it("Chat, GPT-5.6: never more than four; the newest client's first, then the summary, the client's others (newest first), the head's last", async () => {
    // The second turn's client marks its system prompt, its previous and its newest message: with
    // the head's and the summary's that would be five.
    const bodies = await markedChatTurns(["Go on.", "And the tests?"], (messages, turn) => [
      0,
      ...(turn === 1 ? [messages.length - 3] : []),
      messages.length - 1,
    ]);
    expect(bodies).toHaveLength(2);
    const first = bodies[0]?.messages as Entry[];
    const second = bodies[1]?.messages as Entry[];
    const one = summaryAndHead(first);
    expect(breakpoints(first).map((at) => at.message)).toEqual([
      0,
      one.head,
      one.summary,
      first.length - 1,
    ]);
    const two = summaryAndHead(second);
    const previous = indexOf(second, "Go on.");
    expect(previous).toBeGreaterThan(two.summary);
    // The head's gives way: the client's three and the summary's.
    expect(breakpoints(second).map((at) => at.message)).toEqual([
      0,
      two.summary,
      previous,
      second.length - 1,
    ]);
    expect(writtenBreakpoints(bodies[1] ?? {}, "chat")).toHaveLength(3);
  });

  it("Chat, GPT-5.6: a client breakpoint on a message the compaction summarized gives way to the summary's", async () => {
    // The client marks the result of step 2 (a message the compaction summarizes) and its newest.
    const bodies = await markedChatTurns(["Go on."], (messages) => [5, messages.length - 1]);
    const messages = bodies[0]?.messages as Entry[];
    const { summary, head } = summaryAndHead(messages);
    expect(summary).toBeGreaterThan(0);
    expect(messages.some((entry) => textOf(entry).startsWith("// module 2\n"))).toBe(false);
    expect(breakpoints(messages).map((at) => at.message)).toEqual([
      head,
      summary,
      messages.length - 1,
    ]);
  });

  it("Chat, GPT-5.6: marks the summary the session wrote, never a client message that merely opens like one", async () => {
    const quoted = `${SUMMARY_OPEN}\nA summary pasted from another tool: please read it.`;
    const start = history(24);
    start[1] = { role: "user", content: quoted };
    const bodies = await markedChatTurns(["Go on."], () => [], start);
    const messages = bodies[0]?.messages as Entry[];
    const pasted = indexOf(messages, quoted);
    expect(pasted).toBe(1);
    // The session's summary: the message opening like one after the pasted one.
    const summary = messages.findIndex(
      (entry, index) =>
        index > pasted && entry.role === "user" && textOf(entry).startsWith(SUMMARY_OPEN),
    );
    expect(summary).toBeGreaterThan(pasted);
    // The pasted message is the head's last (the head's breakpoint), not a summary.
    expect(breakpoints(messages).map((at) => at.message)).toEqual([pasted, summary]);
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

  /**
   * Responses turns of a session in a 9k window (the first compacts), each sent with the client's
   * own breakpoints on the items `marks` names. The upstream's bodies.
   */
  async function markedResponsesTurns(
    turns: string[],
    marks: (items: Entry[], turn: number) => number[],
    start: ChatParam[] = history(24),
  ) {
    const tag = freshTag();
    const client = openaiClient(tag, {
      session: freshSession("gw-openai-bp"),
      headers: { "X-Condense-Context-Window": "9000" },
    });
    const input = fromCanonical(parseMessages(start), "responses").messages as Entry[];
    for (const [turn, text] of turns.entries()) {
      input.push({ role: "user", content: text });
      const at = new Set(marks(input, turn));
      const sent = input.map((item, index) =>
        at.has(index)
          ? {
              ...item,
              content: [
                { type: "input_text", text: textOf(item), prompt_cache_breakpoint: BREAKPOINT },
              ],
            }
          : item,
      );
      const reply = await client.responses.create({ model: "gpt-5.6", input: sent } as never);
      input.push({ role: "assistant", content: (reply as { output_text: string }).output_text });
    }
    return (await upstreamCalls(tag)).map((entry) => entry.body ?? {});
  }

  it("Responses, GPT-5.6: keeps the client's breakpoints as sent; the gateway's take the slots left, the summary's first", async () => {
    // The second turn's client marks its system prompt, its previous and its newest message: with
    // the head's and the summary's that would be five.
    const bodies = await markedResponsesTurns(["Go on.", "And the tests?"], (items, turn) => [
      0,
      ...(turn === 1 ? [items.length - 3] : []),
      items.length - 1,
    ]);
    expect(bodies).toHaveLength(2);
    const first = bodies[0]?.input as Entry[];
    const one = summaryAndHead(first);
    expect(breakpoints(first).map((at) => at.message)).toEqual([
      0,
      one.head,
      one.summary,
      first.length - 1,
    ]);
    const second = bodies[1]?.input as Entry[];
    const two = summaryAndHead(second);
    expect(breakpoints(second).map((at) => at.message)).toEqual([
      0,
      two.summary,
      indexOf(second, "Go on."),
      second.length - 1,
    ]);
  });

  it("Responses, GPT-5.6: marks the summary the session wrote, never an item that merely opens like one", async () => {
    const quoted = `${SUMMARY_OPEN}\nA summary pasted from another tool: please read it.`;
    const start = history(24);
    start[1] = { role: "user", content: quoted };
    const bodies = await markedResponsesTurns(["Go on."], () => [], start);
    const items = bodies[0]?.input as Entry[];
    const pasted = indexOf(items, quoted);
    expect(pasted).toBe(1);
    const summary = items.findIndex(
      (entry, index) =>
        index > pasted && entry.role === "user" && textOf(entry).startsWith(SUMMARY_OPEN),
    );
    expect(summary).toBeGreaterThan(pasted);
    expect(breakpoints(items).map((at) => at.message)).toEqual([pasted, summary]);
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
