/**
 * `X-Condense-Compaction` and `X-Condense-Tokens` describe the context the
 * gateway actually sent: the compaction its view comes from is named the
 * first time its result is sent, a background one included, and the tokens
 * are those of the context sent.
 */

import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { freshTag, openaiClient, upstreamCalls } from "../support/gateway-helpers";
import {
  call,
  compactions,
  conversation,
  freshSession,
  runAlarmWhenDue,
  stubFor,
} from "../support/helpers";

type ChatParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;

describe("the compaction headers of a gateway turn", () => {
  it("name a background compaction on the turn that first sends its result, then none", async () => {
    const session = freshSession("gw-headers");
    // Over the trigger (half of 64k) but within the budget (64k less the 20k reserve): the
    // compaction waits for the alarm instead of running in the turn.
    const patched = await call("PATCH", `/v1/sessions/${session}`, {
      body: { contextWindow: 64_000, threshold: 0.5 },
    });
    expect(patched.status).toBe(200);
    const tag = freshTag();
    const client = openaiClient(tag, { session });
    const history = [
      ...(conversation(55) as unknown as ChatParam[]),
      { role: "user", content: "Go on." } as ChatParam,
    ];

    const first = await client.chat.completions
      .create({ model: "gpt-4o", messages: history })
      .withResponse();
    expect(first.response.headers.get("X-Condense-Compaction")).toBe("none");
    const answer = first.data.choices[0]?.message;
    if (answer === undefined) throw new Error("no answer");

    // The background compaction the turn scheduled runs between two turns.
    expect(await runAlarmWhenDue(stubFor("alice", session))).toBe(true);
    const [event] = await compactions(session);
    expect(event?.trigger).not.toBe("gateway");

    history.push(answer, { role: "user", content: "And the next one." });
    const second = await client.chat.completions
      .create({ model: "gpt-4o", messages: history })
      .withResponse();
    expect(second.response.headers.get("X-Condense-Compaction")).toBe(String(event?.tier));
    // The tokens of the context sent: what the upstream counted of it (the session sums its
    // messages; the engine's total over them also counts the 3 tokens priming the reply).
    const calls = await upstreamCalls(tag);
    const sent = Number(second.response.headers.get("X-Condense-Tokens"));
    expect((calls[1]?.tokens ?? 0) - sent).toBeGreaterThanOrEqual(0);
    expect((calls[1]?.tokens ?? 0) - sent).toBeLessThanOrEqual(3);
    expect(calls[1]?.tokens).toBeLessThan(calls[0]?.tokens ?? 0);

    const answer2 = second.data.choices[0]?.message;
    if (answer2 === undefined) throw new Error("no answer");
    history.push(answer2, { role: "user", content: "One more." });
    const third = await client.chat.completions
      .create({ model: "gpt-4o", messages: history })
      .withResponse();
    expect(third.response.headers.get("X-Condense-Compaction")).toBe("none");
  });
});
