/**
 * The user's memories through the gateway: with the session's setting `memory` on, the context the
 * gateway sends upstream carries the memory block after the system message, as `/context` does
 * (placed and counted as a pinned message); the block is never stored, so the client's next history still
 * extends the session. With the setting off, nothing is added.
 */

import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { MEMORY_FENCE_OPEN } from "../../src/user/memory-block";
import { freshTag, openaiClient, upstreamCalls } from "../support/gateway-helpers";
import type { RecordedCall } from "../support/gateway-upstream";
import { call, freshSession, transcript, waitFor } from "../support/helpers";

const history: OpenAI.Chat.ChatCompletionMessageParam[] = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "Set up the build for the billing service." },
];

function upstreamMessages(recorded: RecordedCall | undefined) {
  return (recorded?.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
}

describe("memories through the gateway", () => {
  it("sends the memory block after the system message and never stores it", async () => {
    const created = await call("POST", "/v1/memory", {
      body: { text: "Prefers pnpm over npm for every build.", kind: "preference" },
    });
    expect(created.status).toBe(201);
    const tag = freshTag();
    const session = freshSession("gw-memory");
    const client = openaiClient(tag, { session });
    await client.chat.completions.create({ model: "gpt-4o", messages: history });
    await waitFor(async () => (await transcript(session)).length === 3, "the first answer");

    const patched = await call("PATCH", `/v1/sessions/${session}`, { body: { memory: true } });
    expect(patched.status).toBe(200);
    const stored = await transcript(session);
    const next: OpenAI.Chat.ChatCompletionMessageParam[] = [
      ...history,
      { role: "assistant", content: String(stored[2]?.message.content ?? "") },
      { role: "user", content: "Which package manager should the build use?" },
    ];
    const { response } = await client.chat.completions
      .create({ model: "gpt-4o", messages: next })
      .withResponse();
    const calls = await upstreamCalls(tag);
    const sent = upstreamMessages(calls[1]);
    expect(sent[0]?.role).toBe("system");
    expect(String(sent[1]?.content)).toContain(MEMORY_FENCE_OPEN);
    expect(String(sent[1]?.content)).toContain("Prefers pnpm over npm for every build.");
    expect(sent.slice(2).map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    await call("PATCH", `/v1/sessions/${session}`, { body: { memory: false } });
    await waitFor(async () => (await transcript(session)).length === 5, "the second answer");
    const after = await transcript(session);
    expect(JSON.stringify(after)).not.toContain(MEMORY_FENCE_OPEN);
    const third = [
      ...next,
      { role: "assistant" as const, content: String(after[4]?.message.content ?? "") },
      { role: "user" as const, content: "Go on." },
    ];
    const plain = await client.chat.completions
      .create({ model: "gpt-4o", messages: third })
      .withResponse();
    const sentPlain = upstreamMessages((await upstreamCalls(tag))[2]);
    expect(JSON.stringify(sentPlain)).not.toContain(MEMORY_FENCE_OPEN);
    expect(plain.response.headers.get("X-Condense-Generation")).toBe(
      response.headers.get("X-Condense-Generation"),
    );
  });
});
