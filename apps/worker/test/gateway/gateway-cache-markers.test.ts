/**
 * Prompt-cache markers through the gateway: they belong to the request. The
 * upstream gets the markers the client sent with this request, where they
 * stand in the context (or on the nearest kept message), never a stale one
 * from storage, never more than Anthropic's 4 (the test upstream refuses a 5th
 * as Anthropic does); after a compaction one more marks the end of the stable
 * prefix, which stays byte-identical until the next compaction, and one the end
 * of the head when a block is left (test/gateway-cache-breakpoints). Before any
 * compaction the body goes upstream byte for byte as it came.
 */

import { SELF } from "cloudflare:test";
import type Anthropic from "@anthropic-ai/sdk";
import {
  countAnthropicCacheMarkers,
  parseMessages,
  SUMMARY_OPEN,
  toAnthropic,
} from "@condense/core";
import { scenarioHeaders } from "@condense/test-servers";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { anthropicClient, freshTag, openaiClient, upstreamCalls } from "../support/gateway-helpers";
import { BASE, call, conversation, freshSession, TOKENS, toolStep } from "../support/helpers";

type AnthropicParam = Anthropic.Messages.MessageParam;
type Block = Record<string, unknown>;

const MARKER = { type: "ephemeral" } as const;
const MODEL = "claude-opus-4-6";

/** Claude Code's system prompt: its last block marked. */
const SYSTEM = [
  { type: "text", text: "You are Claude Code, Anthropic's official CLI for Claude." },
  { type: "text", text: "Work in the repository.", cache_control: MARKER },
];

/** Claude Code's tools: the last one marked. */
const TOOLS = [
  {
    name: "read_file",
    description: "Read a file.",
    input_schema: { type: "object", properties: { path: { type: "string" } } },
    cache_control: MARKER,
  },
];

/** An agent's Chat Completions history of `steps` tool steps (about 600 tokens each), system first. */
function agentHistory(steps: number): Array<Record<string, unknown>> {
  // Call ids of its own: the test upstream numbers the calls it makes `call_N`.
  return JSON.parse(JSON.stringify(conversation(steps)).replaceAll('"call_', '"toolu_h'));
}

/** The same history in Anthropic's form, its system left out. */
function anthropicHistory(steps: number): AnthropicParam[] {
  return toAnthropic(parseMessages(agentHistory(steps).slice(1))).messages as AnthropicParam[];
}

/** The history with one marker, on the last block of its newest message, as Claude Code sends it. */
function markNewest(messages: AnthropicParam[]): AnthropicParam[] {
  return messages.map((message, index) => {
    const blocks: Block[] =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : (message.content as unknown as Block[]).map((block) => {
            const { cache_control: _old, ...rest } = block;
            return rest;
          });
    if (index === messages.length - 1) {
      const last = blocks.length - 1;
      blocks[last] = { ...blocks[last], cache_control: MARKER };
    }
    return { ...message, content: blocks } as unknown as AnthropicParam;
  });
}

/** The indices of the messages of an upstream request that carry a marker. */
function markedMessages(messages: unknown): number[] {
  return (messages as Array<{ content: unknown }>).flatMap((message, index) =>
    Array.isArray(message.content) &&
    (message.content as Block[]).some((block) => block.cache_control !== undefined)
      ? [index]
      : [],
  );
}

describe("cache markers through the gateway (Anthropic)", () => {
  it("sends this request's markers only, at most 4, across compactions (Claude Code with Opus)", async () => {
    const tag = freshTag();
    const session = freshSession("gw-markers");
    const client = anthropicClient(tag, {
      session,
      scenario: { tool: "read_file" },
      headers: { "X-Condense-Context-Window": "9000" },
    });
    let history = anthropicHistory(14);
    const tiers: string[] = [];
    for (let turn = 0; turn < 8; turn++) {
      const sent = markNewest(history);
      const reply = await client.messages
        .create({
          model: MODEL,
          max_tokens: 512,
          system: SYSTEM as never,
          tools: TOOLS as never,
          messages: sent,
        })
        .withResponse();
      // The test upstream refuses a 5th marker with Anthropic's own 400.
      expect(reply.response.status).toBe(200);
      tiers.push(reply.response.headers.get("X-Condense-Compaction") ?? "");
      const use = reply.data.content.find((block) => block.type === "tool_use");
      if (use?.type !== "tool_use") throw new Error("no tool_use");
      history = [
        ...sent,
        { role: "assistant", content: reply.data.content },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: use.id,
              content: `// ${turn}\n${"export const x = 1;\n".repeat(120)}`,
            },
          ],
        },
      ];
    }
    expect(tiers.filter((tier) => tier !== "none").length).toBeGreaterThan(0);
    const calls = await upstreamCalls(tag);
    for (const upstream of calls) {
      const body = upstream.body ?? {};
      expect(countAnthropicCacheMarkers(body)).toBeLessThanOrEqual(4);
      const messages = body.messages as Array<{ content: Block[] }>;
      // The newest message keeps the marker the client put on it.
      expect(messages.at(-1)?.content.at(-1)?.cache_control).toEqual(MARKER);
      // The client's system and tools markers pass untouched.
      expect(body.tools).toEqual(TOOLS);
      expect((body.system as Block[]).at(-1)?.cache_control).toEqual(MARKER);
    }
  });

  it("marks the end of the stable prefix after a compaction, and keeps that prefix until the next", async () => {
    const tag = freshTag();
    const session = freshSession("gw-markers");
    const client = anthropicClient(tag, {
      session,
      headers: { "X-Condense-Context-Window": "12000" },
    });
    const history = anthropicHistory(24);
    const turn = async (text: string) => {
      history.push({ role: "user", content: text });
      const reply = await client.messages
        .create({
          model: MODEL,
          max_tokens: 256,
          system: SYSTEM as never,
          messages: markNewest(history),
        })
        .withResponse();
      history.push({ role: "assistant", content: reply.data.content });
      return reply.response.headers.get("X-Condense-Compaction");
    };
    expect(await turn("Go on.")).not.toBe("none");
    expect(await turn("And the tests?")).toBe("none");
    expect(await turn("Ship it.")).toBe("none");

    const [first, second, third] = (await upstreamCalls(tag)).map(
      (entry) => (entry.body?.messages ?? []) as unknown[],
    );
    if (first === undefined || second === undefined || third === undefined)
      throw new Error("three turns");
    // The whole first request is the prefix of the next ones, byte for byte, its end marked in
    // both: what the next turns read from the cache. The head's end is marked too (the message
    // before the summary's; test/gateway-cache-breakpoints).
    const [head] = markedMessages(first);
    expect(head).toBeLessThan(first.length - 1);
    for (const next of [second, third]) {
      expect(JSON.stringify(next.slice(0, first.length))).toBe(JSON.stringify(first));
      expect(markedMessages(next)).toEqual([head, first.length - 1, next.length - 1]);
    }
    const bodies = (await upstreamCalls(tag)).map((entry) => entry.body ?? {});
    // The client's system marker, the head's, the prefix's and the newest message's.
    for (const body of bodies.slice(1)) expect(countAnthropicCacheMarkers(body)).toBe(4);
  });

  it("never sends a marker stored with a message before markers were left out", async () => {
    const tag = freshTag();
    const session = freshSession("gw-markers");
    // What the gateway stored before: each message's original blocks, its marker of the time included.
    const history = anthropicHistory(20);
    const stored = parseMessages(agentHistory(20)).map((message) =>
      message.role === "user" || message.role === "tool"
        ? {
            ...message,
            provider_data: {
              anthropic: {
                blocks:
                  message.role === "tool"
                    ? [
                        {
                          type: "tool_result",
                          tool_use_id: message.tool_call_id,
                          content: message.content,
                          cache_control: MARKER,
                        },
                      ]
                    : [{ type: "text", text: message.content, cache_control: MARKER }],
              },
            },
          }
        : message,
    );
    const appended = await call("POST", `/v1/sessions/${session}/messages`, {
      body: { messages: stored, model: MODEL },
    });
    expect(appended.status).toBe(200);
    history.push({ role: "user", content: "Summarize where we are." });
    const client = anthropicClient(tag, {
      session,
      headers: { "X-Condense-Context-Window": "9000" },
    });
    const reply = await client.messages
      .create({
        model: MODEL,
        max_tokens: 256,
        system: "You are a careful coding agent.",
        messages: markNewest(history),
      })
      .withResponse();
    expect(reply.response.status).toBe(200);
    expect(reply.response.headers.get("X-Condense-Generation")).toBe("1");
    expect(reply.response.headers.get("X-Condense-Compaction")).not.toBe("none");
    const [sent] = await upstreamCalls(tag);
    const messages = sent?.body?.messages as unknown[];
    // The newest message's marker (which the compacted view now ends with) and the head's end
    // the gateway adds after a compaction: no stored one.
    const marked = markedMessages(messages);
    expect(marked).toHaveLength(2);
    expect(marked.at(-1)).toBe(messages.length - 1);
    expect(countAnthropicCacheMarkers(sent?.body ?? {})).toBe(2);
    const headEnd = messages[marked[0] ?? -1] as { content: Block[] };
    const summaryBlock = headEnd.content.findIndex((block) =>
      String(block.text ?? "").startsWith(SUMMARY_OPEN),
    );
    // The head's last block is marked, the summary (merged into its message, or the next) is not.
    const markedBlock = headEnd.content.findIndex((block) => block.cache_control !== undefined);
    expect(summaryBlock === -1 || markedBlock < summaryBlock).toBe(true);
  });
});

describe("cache markers through the gateway (Chat Completions)", () => {
  it("forwards the body byte for byte before any compaction (markers, prompt_cache_key and all)", async () => {
    const tag = freshTag();
    const session = freshSession("gw-markers");
    const body = `{"model":"anthropic/claude-opus-4-6", "prompt_cache_key":"repo-42","messages":[{"role":"system","content":[{"type":"text","text":"You are a careful coding agent.","cache_control":{"type":"ephemeral"}}]},{"role":"user","content":[{"type":"text","text":"List the files.","cache_control":{"type":"ephemeral","ttl":"1h"}}]}],"usage":{"include":true}}`;
    const response = await SELF.fetch(`${BASE}/v1/gateway/up/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: "Bearer sk-caller-openai",
        "X-Condense-Key": TOKENS.alice ?? "",
        "X-Condense-Session": session,
        ...scenarioHeaders({ name: tag }),
      },
      body,
    });
    expect(response.status).toBe(200);
    const [sent] = await upstreamCalls(tag);
    expect(sent?.text).toBe(body);
  });

  it("places content-part markers again after a compaction, prompt_cache_key untouched", async () => {
    const tag = freshTag();
    const session = freshSession("gw-markers");
    const client = openaiClient(tag, {
      session,
      headers: { "X-Condense-Context-Window": "9000" },
    });
    type ChatParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;
    const messages = [
      {
        role: "system",
        content: [{ type: "text", text: "You are a careful coding agent.", cache_control: MARKER }],
      },
      { role: "user", content: "Fix the build." },
      ...Array.from({ length: 24 }, (_, i) => toolStep(i + 1)).flat(),
      { role: "user", content: [{ type: "text", text: "Go on.", cache_control: MARKER }] },
    ] as unknown as ChatParam[];
    const reply = await client.chat.completions
      .create({
        model: "anthropic/claude-opus-4-6",
        messages,
        prompt_cache_key: "repo-42",
      } as never)
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Compaction")).not.toBe("none");
    const [sent] = await upstreamCalls(tag);
    const body = sent?.body ?? {};
    expect(body.prompt_cache_key).toBe("repo-42");
    const out = body.messages as Array<{ content: unknown }>;
    expect(out[0]?.content).toEqual(messages[0]?.content);
    expect(out.at(-1)?.content).toEqual([{ type: "text", text: "Go on.", cache_control: MARKER }]);
    // The system's, the head's end and the newest message's, which the compacted view now ends with.
    const marked = markedMessages(out);
    expect(marked).toHaveLength(3);
    expect([marked[0], marked[2]]).toEqual([0, out.length - 1]);
    expect(String((out[(marked[1] ?? 0) + 1]?.content as string) ?? "")).toContain(SUMMARY_OPEN);
  });
});
