/**
 * The breakpoints the gateway adds after a compaction (issue 32, build 3): besides the one at the
 * end of the stable prefix (the compacted view, its summary included), one at the end of the head
 * (the messages every compaction keeps before the summary), so the turn after the next compaction
 * reads the head from the cache instead of writing it again. Within Anthropic's 4, the client's own
 * markers first (the test upstream refuses a 5th as Anthropic does).
 */

import type Anthropic from "@anthropic-ai/sdk";
import {
  countAnthropicCacheMarkers,
  parseMessages,
  SUMMARY_OPEN,
  toAnthropic,
} from "@condense/core";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { anthropicClient, freshTag, openaiClient, upstreamCalls } from "../support/gateway-helpers";
import { conversation, freshSession, toolStep } from "../support/helpers";

type AnthropicParam = Anthropic.Messages.MessageParam;
type Block = Record<string, unknown>;

const MARKER = { type: "ephemeral" } as const;
const MODEL = "claude-opus-4-6";

/** An agent's history of `steps` tool steps in Anthropic's form, its system left out. */
function anthropicHistory(steps: number): AnthropicParam[] {
  const history = JSON.parse(JSON.stringify(conversation(steps)).replaceAll('"call_', '"toolu_h'));
  return toAnthropic(parseMessages(history.slice(1))).messages as AnthropicParam[];
}

/** The history with one marker, on the last block of its newest message. */
function markNewest(messages: AnthropicParam[]): AnthropicParam[] {
  return messages.map((message, index) => {
    const blocks: Block[] =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : (message.content as unknown as Block[]).map(({ cache_control: _old, ...rest }) => rest);
    if (index === messages.length - 1) {
      const last = blocks.length - 1;
      blocks[last] = { ...blocks[last], cache_control: MARKER };
    }
    return { ...message, content: blocks } as unknown as AnthropicParam;
  });
}

type Sent = Array<{ content: string | Block[] }>;

/** Every block of an upstream request's messages, in order: where it is, its text, its marker. */
function blocks(messages: Sent): Array<{ at: string; text: string; block: Block }> {
  return messages.flatMap((message, index) =>
    (typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : message.content
    ).map((block, b) => ({
      at: `${index}:${b}`,
      text: String(block.text ?? ""),
      block,
    })),
  );
}

function markedBlocks(messages: Sent): string[] {
  return blocks(messages)
    .filter((entry) => entry.block.cache_control !== undefined)
    .map((entry) => entry.at);
}

/**
 * The position of the head's last block: the one before the summary's (Anthropic merges the
 * head's last user turn and the summary into one message, so the two may share it).
 */
function headEnd(messages: Sent): number {
  return blocks(messages).findIndex((entry) => entry.text.trimStart().startsWith(SUMMARY_OPEN)) - 1;
}

/** Three turns of a session in a 12k window: the first compacts, the next two do not. */
async function threeTurns(request: { system: unknown; tools?: unknown }) {
  const tag = freshTag();
  const client = anthropicClient(tag, {
    session: freshSession("gw-breakpoints"),
    headers: { "X-Condense-Context-Window": "12000" },
  });
  const history = anthropicHistory(24);
  const tiers: Array<string | null> = [];
  for (const text of ["Go on.", "And the tests?", "Ship it."]) {
    history.push({ role: "user", content: text });
    const reply = await client.messages
      .create({ model: MODEL, max_tokens: 256, messages: markNewest(history), ...request } as never)
      .withResponse();
    expect(reply.response.status).toBe(200);
    history.push({ role: "assistant", content: (reply.data as Anthropic.Message).content });
    tiers.push(reply.response.headers.get("X-Condense-Compaction"));
  }
  expect(tiers[0]).not.toBe("none");
  expect(tiers.slice(1)).toEqual(["none", "none"]);
  return (await upstreamCalls(tag)).map((entry) => entry.body ?? {});
}

describe("the head's breakpoint (Anthropic)", () => {
  it("marks the end of the head, the end of the view and the newest message when the client marks only its newest", async () => {
    const bodies = await threeTurns({ system: "You are a careful coding agent." });
    const first = bodies[0]?.messages as Sent;
    const head = headEnd(first);
    expect(head).toBeGreaterThanOrEqual(0);
    const at = (messages: Sent, index: number) => blocks(messages).at(index)?.at ?? "";
    for (const body of bodies) {
      const messages = body.messages as Sent;
      // The head, the view's end (the first request's end, its newest message then) and the newest.
      const expected = [...new Set([at(first, head), at(first, -1), at(messages, -1)])];
      expect(markedBlocks(messages)).toEqual(expected);
      expect(countAnthropicCacheMarkers(body)).toBe(expected.length);
      // The head stays byte-identical: what the next compaction's turn reads from the cache.
      expect(JSON.stringify(blocks(messages).slice(0, head + 1))).toBe(
        JSON.stringify(blocks(first).slice(0, head + 1)),
      );
    }
    expect(countAnthropicCacheMarkers(bodies[2] ?? {})).toBe(3);
  });

  it("counts the client's own markers first: with its system marked, 4 in all", async () => {
    const bodies = await threeTurns({
      system: [{ type: "text", text: "You are a careful coding agent.", cache_control: MARKER }],
    });
    for (const body of bodies) {
      const messages = body.messages as Sent;
      expect(countAnthropicCacheMarkers(body)).toBeLessThanOrEqual(4);
      expect(markedBlocks(messages)).toContain(blocks(messages).at(headEnd(messages))?.at);
    }
    expect(countAnthropicCacheMarkers(bodies[2] ?? {})).toBe(4);
  });

  it("gives way to the client's own markers when 4 are taken (Claude Code: tools and system)", async () => {
    const bodies = await threeTurns({
      system: [{ type: "text", text: "You are Claude Code.", cache_control: MARKER }],
      tools: [
        {
          name: "read_file",
          description: "Read a file.",
          input_schema: { type: "object", properties: { path: { type: "string" } } },
          cache_control: MARKER,
        },
      ],
    });
    for (const [index, body] of bodies.entries()) {
      const messages = body.messages as Sent;
      expect(countAnthropicCacheMarkers(body)).toBeLessThanOrEqual(4);
      expect((body.system as Block[]).at(-1)?.cache_control).toEqual(MARKER);
      // The compacting turn's view ends at its newest message: one block less taken, so the head
      // has one. After it, tools, system, the view's end and the newest take all 4.
      const head = blocks(messages).at(headEnd(messages))?.at;
      if (index === 0) expect(markedBlocks(messages)).toContain(head);
      else expect(markedBlocks(messages)).not.toContain(head);
    }
  });
});

describe("the head's breakpoint, where the session's summary sits (Anthropic)", () => {
  it("ends the head before the summary the session wrote, never before a message that opens like one", async () => {
    const quoted = `${SUMMARY_OPEN}\nA summary pasted from another tool: please read it.`;
    const history = anthropicHistory(24);
    history[0] = { role: "user", content: quoted };
    history.push({ role: "user", content: "Go on." });
    const tag = freshTag();
    const client = anthropicClient(tag, {
      session: freshSession("gw-breakpoints"),
      headers: { "X-Condense-Context-Window": "12000" },
    });
    const reply = await client.messages
      .create({
        model: MODEL,
        max_tokens: 256,
        system: "You are a careful coding agent.",
        messages: markNewest(history),
      } as never)
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Compaction")).not.toBe("none");
    const [body] = (await upstreamCalls(tag)).map((entry) => entry.body ?? {});
    const messages = body?.messages as Sent;
    const all = blocks(messages);
    const pasted = all.findIndex((entry) => entry.text === quoted);
    const summary = all.findLastIndex((entry) => entry.text.trimStart().startsWith(SUMMARY_OPEN));
    expect(pasted).toBeGreaterThanOrEqual(0);
    expect(summary).toBeGreaterThan(pasted);
    expect(markedBlocks(messages)).toContain(all[summary - 1]?.at);
    // The system prompt (before the pasted message) is no head's end: it stays as sent.
    expect(body?.system).toBe("You are a careful coding agent.");
  });
});

describe("OpenAI's prompt_cache_key", () => {
  type ChatParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;
  const history = (steps: number) =>
    [
      { role: "system", content: "You are a careful coding agent." },
      { role: "user", content: "Fix the build." },
      ...Array.from({ length: steps }, (_, i) => toolStep(i + 1)).flat(),
      { role: "user", content: "Go on." },
    ] as unknown as ChatParam[];

  /** Two turns of `session` in a 9k window: the first compacts; the upstream's bodies. */
  async function twoTurns(session: string, key?: string) {
    const tag = freshTag();
    const client = openaiClient(tag, {
      session,
      headers: { "X-Condense-Context-Window": "9000" },
    });
    const messages = history(24);
    for (const text of ["Go on.", "And the tests?"]) {
      messages.push({ role: "user", content: text });
      const reply = await client.chat.completions.create({
        model: "gpt-4o",
        messages,
        ...(key !== undefined ? { prompt_cache_key: key } : {}),
      });
      messages.push({ role: "assistant", content: reply.choices[0]?.message.content ?? "" });
    }
    return (await upstreamCalls(tag)).map((entry) => entry.body ?? {});
  }

  it("is set from the session once the gateway sends its context, the same every turn", async () => {
    const session = freshSession("gw-cache-key");
    const [first, second] = await twoTurns(session);
    const key = first?.prompt_cache_key;
    expect(typeof key).toBe("string");
    expect(String(key)).toMatch(/^condense-[0-9a-f]{32}$/);
    // Not the session's id (the provider sees it): a digest of it.
    expect(String(key)).not.toContain(session);
    expect(second?.prompt_cache_key).toBe(key);
    const [other] = await twoTurns(freshSession("gw-cache-key"));
    expect(other?.prompt_cache_key).not.toBe(key);
  });

  it("is kept as the client sent it", async () => {
    const bodies = await twoTurns(freshSession("gw-cache-key"), "repo-42");
    expect(bodies.map((body) => body.prompt_cache_key)).toEqual(["repo-42", "repo-42"]);
  });
});
