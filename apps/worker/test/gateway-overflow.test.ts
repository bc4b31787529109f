/**
 * Context overflows reported by the upstream are recovered inside the
 * gateway (compact harder, retry, at most twice), with sessions and without;
 * and a history that does not fit is compacted before it is sent at all.
 */

import type Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { anthropicClient, freshTag, openaiClient, upstreamCalls } from "./gateway-helpers";
import { call, conversation, freshSession, status } from "./helpers";

type ChatParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** An agent's history of `steps` tool steps (about 600 tokens each), ending with a user message. */
function history(steps: number): ChatParam[] {
  return [
    ...(conversation(steps) as unknown as ChatParam[]),
    { role: "user", content: "Go on with the next module." },
  ];
}

describe("overflow recovery with a session", () => {
  it("learns the window the upstream states, compacts and retries before answering", async () => {
    const tag = freshTag();
    const session = freshSession("gw-overflow");
    const client = openaiClient(tag, { session, script: "limit=4000" });
    const reply = await client.chat.completions
      .create({ model: "gpt-4o", messages: history(12) })
      .withResponse();
    expect(reply.response.status).toBe(200);
    expect(reply.response.headers.get("X-Condense-Overflow-Retries")).toBe("1");
    expect(reply.response.headers.get("X-Condense-Compaction")).toMatch(/^[1-4]$/);
    const calls = await upstreamCalls(tag);
    expect(calls).toHaveLength(2);
    expect(calls[0]?.tokens).toBeGreaterThan(4000);
    expect(calls[1]?.tokens).toBeLessThanOrEqual(4000);
    expect(Number(reply.response.headers.get("X-Condense-Tokens"))).toBeLessThanOrEqual(4000);
    expect((await status(session)).learnedContextWindow).toBe(4000);
  });

  it("recovers from the Responses API's overflow, which states no figures", async () => {
    const tag = freshTag();
    const session = freshSession("gw-overflow");
    const client = openaiClient(tag, { session, script: "limit=5000" });
    // The Responses form of the same history: calls as function_call items, results as their outputs.
    const items = (conversation(12) as Array<Record<string, unknown>>).flatMap(
      (message): unknown[] => {
        if (message.role === "tool") {
          return [
            {
              type: "function_call_output",
              call_id: message.tool_call_id,
              output: message.content,
            },
          ];
        }
        const calls = (message.tool_calls ?? []) as Array<{
          id: string;
          function: { name: string; arguments: string };
        }>;
        return [
          { role: message.role, content: message.content },
          ...calls.map((toolCall) => ({
            type: "function_call",
            call_id: toolCall.id,
            name: toolCall.function.name,
            arguments: toolCall.function.arguments,
          })),
        ];
      },
    );
    const reply = await client.responses
      .create({ model: "gpt-4o", input: items as never })
      .withResponse();
    expect(reply.response.status).toBe(200);
    const calls = await upstreamCalls(tag);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.at(-1)?.tokens).toBeLessThanOrEqual(5000);
  });

  it("reads Anthropic's input + max_tokens wording and recovers", async () => {
    const tag = freshTag();
    const session = freshSession("gw-overflow");
    const client = anthropicClient(tag, { session, script: "limit=6000;sum" });
    const messages: Anthropic.Messages.MessageParam[] = [];
    for (let i = 0; i < 12; i++) {
      messages.push({
        role: "user",
        content: `Part ${i}: ${"the module exports a value; ".repeat(90)}`,
      });
      messages.push({ role: "assistant", content: `Noted part ${i}.` });
    }
    messages.push({ role: "user", content: "Summarize every part." });
    const reply = await client.messages
      .create({ model: "claude-sonnet-5-5", max_tokens: 1000, messages })
      .withResponse();
    expect(reply.response.status).toBe(200);
    const calls = await upstreamCalls(tag);
    expect(calls.at(-1)?.tokens).toBeLessThanOrEqual(6000);
    // The stated limit is the session's window from now on.
    expect((await status(session)).learnedContextWindow).toBe(6000);
  });

  it("returns the upstream's error as it was when retries do not make it fit", async () => {
    const tag = freshTag();
    const session = freshSession("gw-overflow");
    const client = openaiClient(tag, { session, script: "limit=20" });
    let error: unknown;
    try {
      await client.chat.completions.create({ model: "gpt-4o", messages: history(6) });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe(
      "context_length_exceeded",
    );
    expect((error as Error).message).toContain("maximum context length is 20 tokens");
    // One retry with the context compacted as far as it goes; a second would send the same again.
    expect(await upstreamCalls(tag)).toHaveLength(2);
  });
});

describe("without a session", () => {
  it("compacts a history that does not fit before sending it, and stores nothing", async () => {
    const tag = freshTag();
    const client = openaiClient(tag, {
      script: "limit=12000",
      headers: { "X-Condense-Context-Window": "12000" },
    });
    const reply = await client.chat.completions
      .create({ model: "gpt-4o", messages: history(30) })
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Session")).toBeNull();
    expect(reply.response.headers.get("X-Condense-Compaction")).toMatch(/^[1-4]$/);
    const calls = await upstreamCalls(tag);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.tokens).toBeLessThanOrEqual(12_000);
  });

  it("forwards a history that fits exactly as it was sent", async () => {
    const tag = freshTag();
    const messages = history(2);
    const reply = await openaiClient(tag)
      .chat.completions.create({ model: "gpt-4o", messages })
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Compaction")).toBe("none");
    expect((await upstreamCalls(tag))[0]?.body?.messages).toEqual(messages);
  });

  it("recovers from an overflow against the window the upstream states", async () => {
    const tag = freshTag();
    const client = openaiClient(tag, { script: "limit=5000" });
    const reply = await client.chat.completions
      .create({ model: "gpt-4o", messages: history(14) })
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Overflow-Retries")).toBe("1");
    const calls = await upstreamCalls(tag);
    expect(calls[1]?.tokens).toBeLessThanOrEqual(5000);
    expect((await call("GET", "/v1/sessions/none")).status).toBe(404);
  });
});
