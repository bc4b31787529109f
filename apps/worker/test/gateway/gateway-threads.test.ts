/**
 * Which conversation a gateway session follows (`session/turns/threads`), driven
 * by agents' real request sequences (`agent-sequences`): side requests never
 * capture the session nor turn the main conversation into a side one, and a
 * rewind of the main conversation still starts a new generation.
 */

import { describe, expect, it } from "vitest";
import type { TranscriptResponseBody } from "../../src/api/schemas";
import { freshTag, queueAnswers, upstreamCalls } from "../support/gateway-helpers";
import { call, freshSession, status, waitFor } from "../support/helpers";
import { type AgentReply, replayAgent, sendAgentRequest } from "./agent-requests";
import { claudeCodeSequence, openCodeMainFirst, openCodeTitleFirst } from "./agent-sequences";

const generationOf = (reply: AgentReply | undefined) =>
  reply?.headers.get("X-Condense-Generation") ?? null;
const statelessOf = (reply: AgentReply | undefined) =>
  reply?.headers.get("X-Condense-Stateless") ?? null;

describe("a session follows the agent's main conversation", () => {
  it("opencode: the title request that comes first does not keep the main conversation out", async () => {
    const session = freshSession("gw-threads");
    const tag = freshTag();
    const replies = await replayAgent("chat", openCodeTitleFirst, { session, tag });
    const [title, ...turns] = replies;
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200));
    // The title held the empty session until the main conversation came.
    expect(generationOf(title)).toBe("1");
    for (const turn of turns) {
      expect(statelessOf(turn)).toBeNull();
      expect(generationOf(turn)).toBe("2");
    }

    // Before any compaction, the main requests go upstream as the client sent them.
    const calls = await upstreamCalls(tag);
    expect(calls.map((call) => call.body)).toEqual(
      openCodeTitleFirst
        .filter((request) => request.kind === "main")
        .map((request) => request.body),
    );
    // The session holds the main conversation, and its generation is the one served.
    const generation = async () =>
      (
        await call<TranscriptResponseBody>(
          "GET",
          `/v1/sessions/${session}/transcript?generation=2&limit=1000`,
        )
      ).body.messages;
    await waitFor(async () => (await generation()).length === 7, "the last answer");
    expect((await generation()).map((entry) => entry.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect((await status(session)).generation).toBe(2);
  });

  it("opencode: a title request that comes second is a side request", async () => {
    const session = freshSession("gw-threads");
    const replies = await replayAgent("chat", openCodeMainFirst, { session, tag: freshTag() });
    const [turn1, title, ...turns] = replies;
    expect(statelessOf(title)).toBe("other-conversation");
    for (const turn of [turn1, ...turns]) {
      expect(statelessOf(turn)).toBeNull();
      expect(generationOf(turn)).toBe("1");
    }
    expect((await status(session)).generation).toBe(1);
  });

  it("Claude Code: the quota check, the topic check and a sub-agent leave the main conversation alone", async () => {
    const session = freshSession("gw-threads");
    const replies = await replayAgent("anthropic", claudeCodeSequence, {
      session,
      tag: freshTag(),
    });
    const [quota, main1, topic, sub1, sub2, main2] = replies;
    expect(replies.map((reply) => reply.status)).toEqual(replies.map(() => 200));
    expect(generationOf(quota)).toBe("1");
    expect(generationOf(main1)).toBe("2");
    for (const side of [topic, sub1, sub2]) expect(statelessOf(side)).toBe("other-conversation");
    expect(statelessOf(main2)).toBeNull();
    expect(generationOf(main2)).toBe("2");
  });

  it("a settled conversation is left only by its own rewind, not by a one-shot under its prompt", async () => {
    const session = freshSession("gw-threads");
    const tag = freshTag();
    const [turn1, , turn2] = openCodeMainFirst;
    if (turn1 === undefined || turn2 === undefined) throw new Error("no sequence");
    await replayAgent("chat", [turn1, turn2], { session, tag });

    // A one-shot under the main prompt without tools (a command summary): a side request.
    const [prompt] = turn1.body.messages as unknown[];
    const oneShot = await sendAgentRequest(
      "chat",
      { model: "e2e-model", messages: [prompt, { role: "user", content: "Summarize `ls -la`." }] },
      { session, tag: `${tag}-side` },
    );
    expect(statelessOf(oneShot)).toBe("other-conversation");
    expect((await status(session)).generation).toBe(1);

    // The agent rewinds to its first message and asks again, with its tools: a new generation.
    await queueAnswers(`${tag}-rewind`, [{ role: "assistant", content: "Starting over." }]);
    const rewound = await sendAgentRequest("chat", turn1.body, { session, tag: `${tag}-rewind` });
    expect(statelessOf(rewound)).toBeNull();
    expect(generationOf(rewound)).toBe("2");
  });
});
