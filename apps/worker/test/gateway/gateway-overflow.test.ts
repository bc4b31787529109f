/**
 * Context overflows reported by the upstream are recovered inside the
 * gateway (compact harder, retry, at most twice), with sessions and without;
 * and a history that does not fit is compacted before it is sent at all.
 */

import { runInDurableObject } from "cloudflare:test";
import type Anthropic from "@anthropic-ai/sdk";
import { toCanonical, validateMessages } from "@condense/core";
import OpenAI from "openai";
import { describe, expect, it, vi } from "vitest";
import { messageHashes } from "../../src/messages/history-hash";
import type { SessionObject } from "../../src/session/session-object";
import { packHashes } from "../../src/session/turns/packed-hashes";
import { requestThread } from "../../src/session/turns/threads";
import {
  anthropicClient,
  freshTag,
  openaiClient,
  releaseHeld,
  upstreamCalls,
} from "../support/gateway-helpers";
import {
  call,
  conversation,
  freshSession,
  status,
  stubFor,
  transcript,
  waitFor,
} from "../support/helpers";

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
    const client = openaiClient(tag, { session, scenario: { limit: 4000 } });
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
    const client = openaiClient(tag, { session, scenario: { limit: 5000 } });
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
    const client = anthropicClient(tag, { session, scenario: { limit: 6000, sumOverflow: true } });
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
    const client = openaiClient(tag, { session, scenario: { limit: 20 } });
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
    // No context fits 20 tokens (the system prompt and the task alone are over): nothing is
    // retried, and the headers say why the error is the upstream's (issue 33).
    expect(await upstreamCalls(tag)).toHaveLength(1);
    const headers = (error as InstanceType<typeof OpenAI.BadRequestError>).headers;
    expect(headers?.get("X-Condense-Overflow")).toBe("passed-through");
    expect(headers?.get("X-Condense-Overflow-Reason")).toMatch(
      /cannot fit the window of 20 tokens/,
    );
  });
});

describe("without a session", () => {
  it("compacts a history that does not fit before sending it, and stores nothing", async () => {
    const tag = freshTag();
    const client = openaiClient(tag, {
      scenario: { limit: 12000 },
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
    const client = openaiClient(tag, { scenario: { limit: 5000 } });
    const reply = await client.chat.completions
      .create({ model: "gpt-4o", messages: history(14) })
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Overflow-Retries")).toBe("1");
    const calls = await upstreamCalls(tag);
    expect(calls[1]?.tokens).toBeLessThanOrEqual(5000);
    expect((await call("GET", "/v1/sessions/none")).status).toBe(404);
  });
});

describe("an overflow after an answer another request left behind", () => {
  it("retries with the request's own history, never with the abandoned answer, and stores nothing after it", async () => {
    const tag = freshTag();
    const session = freshSession("gw-abandoned");
    const messages = history(12);
    const key = { userId: "alice", sessionId: session };
    const stub = stubFor("alice", session);
    // R1: the same history reached the session, and its client abandoned it before the upstream
    // answered (the turn as the Worker makes it).
    const canonical = toCanonical({ messages });
    const hashes = await messageHashes(canonical);
    const r1 = await runInDurableObject(stub, (object: SessionObject) =>
      object.gatewayTurn(key, {
        hashes: packHashes(hashes),
        from: 0,
        messages: canonical,
        ...requestThread(canonical, { model: "gpt-4o", messages }),
        overheadTokens: 0,
        model: "gpt-4o",
      }),
    );
    if (!r1.ok || r1.value.kind !== "context") throw new Error("R1 was not served");
    const { generation, lastSeq } = r1.value;

    // R2: the client resends the history; the upstream holds it, then refuses it as too long.
    const client = openaiClient(tag, { session, scenario: { hold: true, limit: 4000 } });
    const r2 = client.chat.completions.create({ model: "gpt-4o", messages }).withResponse();
    await waitFor(async () => (await upstreamCalls(tag)).length === 1, "R2 at the upstream");

    // Meanwhile R1's answer (calling a tool) is stored after the history, as the gateway stores it.
    const abandoned = [
      {
        role: "assistant" as const,
        content: null,
        tool_calls: [
          {
            id: "call_abandoned_2",
            type: "function" as const,
            function: { name: "read_file", arguments: '{"path":"src/x.ts"}' },
          },
        ],
      },
    ];
    const stored = await runInDurableObject(stub, async (object: SessionObject) =>
      object.gatewayAnswer(key, {
        generation,
        afterSeq: lastSeq,
        messages: abandoned,
        hashes: await messageHashes(abandoned),
        model: "gpt-4o",
      }),
    );
    expect(stored).toMatchObject({ ok: true, value: { appended: true } });

    const logs: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => {
      logs.push(JSON.stringify(line));
    });
    try {
      await releaseHeld(tag);
      const reply = await r2;
      expect(reply.response.status).toBe(200);
      expect(reply.response.headers.get("X-Condense-Overflow-Retries")).toBe("1");
      // R2's answer is handled after the response: refused (the session moved on while R2 was
      // out), or, as it was, stored after R1's.
      await waitFor(
        async () =>
          logs.some((line) => line.includes('"gateway_answer_not_stored"')) ||
          (await transcript(session)).length > lastSeq + 1,
        "R2's answer handled",
      );
    } finally {
      spy.mockRestore();
    }

    const calls = await upstreamCalls(tag);
    expect(calls).toHaveLength(2);
    const retried = toCanonical({ messages: (calls[1]?.body?.messages ?? []) as unknown[] });
    expect(JSON.stringify(retried)).not.toContain("call_abandoned_2");
    expect(validateMessages(retried, "openai").problems).toEqual([]);
    expect(calls[1]?.tokens).toBeLessThanOrEqual(4000);
    const rows = await transcript(session);
    expect(rows).toHaveLength(lastSeq + 1);
    expect(JSON.stringify(rows.at(-1)?.message)).toContain("call_abandoned_2");
  });
});
