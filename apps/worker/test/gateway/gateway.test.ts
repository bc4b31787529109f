/**
 * The gateway driven by the official `openai` SDK: sessions matched by
 * canonical content, generations, streaming, and what reaches the upstream.
 */

import { toCanonical, validateMessages } from "@condense/core";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { freshTag, openaiClient, upstreamCalls } from "../support/gateway-helpers";
import { freshSession, status, transcript, waitFor } from "../support/helpers";

type ChatParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const SYSTEM: ChatParam = { role: "system", content: "You are a careful coding agent." };

describe("the gateway with a session (Chat Completions)", () => {
  it("appends the history's new messages and the answer, and forwards the session's context", async () => {
    const tag = freshTag();
    const session = freshSession("gw");
    const client = openaiClient(tag, { session });
    const history: ChatParam[] = [SYSTEM, { role: "user", content: "List the files." }];
    const first = await client.chat.completions
      .create({ model: "gpt-4o", messages: history, temperature: 0.2 })
      .withResponse();
    expect(first.data.choices[0]?.message.content).toMatch(/^Answer \d+$/);
    expect(first.response.headers.get("X-Condense-Session")).toBe(session);
    expect(first.response.headers.get("X-Condense-Generation")).toBe("1");
    expect(first.response.headers.get("X-Condense-Compaction")).toBe("none");
    expect(Number(first.response.headers.get("X-Condense-Tokens"))).toBeGreaterThan(0);

    // The agent keeps the SDK's message object (refusal: null, annotations: []) in its history.
    const answer = first.data.choices[0]?.message;
    if (answer === undefined) throw new Error("no answer");
    history.push(answer, { role: "user", content: "Now read README.md." });
    const second = await client.chat.completions
      .create({ model: "gpt-4o", messages: history })
      .withResponse();
    expect(second.response.headers.get("X-Condense-Generation")).toBe("1");

    // A non-streamed answer is stored right after the response is sent.
    await waitFor(async () => (await transcript(session)).length === 5, "the second answer");
    const stored = await transcript(session);
    expect(stored.map((entry) => [entry.role, entry.message.content])).toEqual([
      ["system", "You are a careful coding agent."],
      ["user", "List the files."],
      ["assistant", answer.content],
      ["user", "Now read README.md."],
      ["assistant", second.data.choices[0]?.message.content],
    ]);
    const calls = await upstreamCalls(tag);
    expect(calls).toHaveLength(2);
    // The request's other fields are forwarded untouched; the provider key too.
    expect(calls[0]?.body?.temperature).toBe(0.2);
    expect(calls[0]?.headers.authorization).toBe("Bearer sk-caller-openai");
    expect(calls[0]?.headers["x-condense-key"]).toBeUndefined();
    expect(calls[1]?.body?.messages).toHaveLength(4);
  });

  it("sends the context of an interrupted tool call as /context serves it: answered, and its late result with its call", async () => {
    const tag = freshTag();
    const session = freshSession("gw-interrupted");
    const client = openaiClient(tag, { session });
    const listFiles: ChatParam = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_1", type: "function", function: { name: "ls", arguments: "{}" } }],
    };
    const history: ChatParam[] = [
      SYSTEM,
      { role: "user", content: "List the files." },
      listFiles,
      { role: "user", content: "Never mind, read README.md." },
    ];
    const first = await client.chat.completions.create({ model: "gpt-4o", messages: history });
    const answer = first.choices[0]?.message;
    if (answer === undefined) throw new Error("no answer");
    // The interrupted call's result comes after all, at the end of the next history.
    history.push(answer, { role: "tool", tool_call_id: "call_1", content: "README.md src" });
    await client.chat.completions.create({ model: "gpt-4o", messages: history });

    const sent = (await upstreamCalls(tag)).map((recorded) =>
      toCanonical({ messages: (recorded.body?.messages ?? []) as unknown[] }),
    );
    for (const messages of sent) {
      expect(validateMessages(messages, "openai").problems).toEqual([]);
      expect(validateMessages(messages, "anthropic").problems).toEqual([]);
    }
    expect(sent[0]?.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "user",
    ]);
    expect(sent[0]?.[3]?.content).toContain("interrupted");
    expect(sent[1]?.[3]).toMatchObject({ role: "tool", content: "README.md src" });
    expect(sent[1]).toHaveLength(6);
    // The transcript keeps every message as the agent appended it.
    await waitFor(async () => (await transcript(session)).length >= 7, "the second answer");
    expect((await transcript(session)).map((entry) => entry.role)).toEqual([
      "system",
      "user",
      "assistant",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
  });

  it("streams the answer through and appends it once the stream ends", async () => {
    const tag = freshTag();
    const session = freshSession("gw");
    const client = openaiClient(tag, { session, scenario: { tool: "read_file" } });
    const stream = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [SYSTEM, { role: "user", content: "Read src/app.ts" }],
      stream: true,
    });
    let argumentsText = "";
    let id = "";
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      if (call?.id !== undefined) id = call.id;
      argumentsText += call?.function?.arguments ?? "";
    }
    expect(JSON.parse(argumentsText)).toEqual({ path: expect.stringMatching(/^src\/\d+\.ts$/) });
    await waitFor(async () => (await transcript(session)).length === 3, "the streamed answer");
    const stored = await transcript(session);
    expect(stored[2]?.message).toMatchObject({
      role: "assistant",
      tool_calls: [
        { id, type: "function", function: { name: "read_file", arguments: argumentsText } },
      ],
    });
  });

  it("starts a new generation when the history does not extend the session's", async () => {
    const tag = freshTag();
    const session = freshSession("gw");
    const client = openaiClient(tag, { session });
    const history: ChatParam[] = [SYSTEM, { role: "user", content: "Plan the release." }];
    const first = await client.chat.completions.create({ model: "gpt-4o", messages: history });
    const answer = first.choices[0]?.message;
    if (answer === undefined) throw new Error("no answer");
    await waitFor(async () => (await transcript(session)).length === 3, "the first answer");

    // The agent rewinds: it edits its first request.
    const edited: ChatParam[] = [SYSTEM, { role: "user", content: "Plan the hotfix instead." }];
    const rewound = await client.chat.completions
      .create({ model: "gpt-4o", messages: edited })
      .withResponse();
    expect(rewound.response.headers.get("X-Condense-Generation")).toBe("2");
    const calls = await upstreamCalls(tag);
    expect(calls[1]?.body?.messages).toEqual([
      { role: "system", content: "You are a careful coding agent." },
      { role: "user", content: "Plan the hotfix instead." },
    ]);
    expect((await status(session)).generation).toBe(2);
    // Nothing stored is dropped: the earlier generation is still readable.
    await waitFor(async () => (await transcript(session)).length === 6, "the second answer");
  });

  it("keeps the window a request states as the session's", async () => {
    const session = freshSession("gw");
    await openaiClient(freshTag(), {
      session,
      headers: { "X-Condense-Context-Window": "64k" },
    }).chat.completions.create({
      model: "gpt-4o",
      messages: [SYSTEM, { role: "user", content: "hi" }],
    });
    const after = await status(session);
    expect(after.contextWindow).toBe(64_000);
    expect(after.settings.contextWindow).toBe(64_000);
  });

  it("serves a side conversation under another system prompt statelessly, leaving the session as it was", async () => {
    const tag = freshTag();
    const session = freshSession("gw");
    const client = openaiClient(tag, { session });
    const history: ChatParam[] = [SYSTEM, { role: "user", content: "Fix the login bug." }];
    const first = await client.chat.completions.create({ model: "gpt-4o", messages: history });
    const answer = first.choices[0]?.message;
    if (answer === undefined) throw new Error("no answer");
    await waitFor(async () => (await transcript(session)).length === 3, "the first answer");

    // The agent asks for a title on the side, with the same headers (as Claude Code does).
    const side = await client.chat.completions
      .create({
        model: "gpt-4o-mini",
        messages: [
          { role: "system", content: "Write a five-word title for this conversation." },
          { role: "user", content: "Fix the login bug." },
        ],
      })
      .withResponse();
    expect(side.response.headers.get("X-Condense-Stateless")).toBe("other-conversation");

    history.push(answer, { role: "user", content: "Now add a test." });
    const next = await client.chat.completions
      .create({ model: "gpt-4o", messages: history })
      .withResponse();
    expect(next.response.headers.get("X-Condense-Generation")).toBe("1");
    expect((await status(session)).generation).toBe(1);
    await waitFor(async () => (await transcript(session)).length === 5, "the next answer");
  });
});
