/**
 * @module test/session/bill
 * The session's bill (issue 19): the provider's cached tokens recorded from
 * gateway answers (each protocol, streamed and not) and from appends, the
 * bill in the status and `/compactions` beside the whole history's, and the
 * cost policy's state kept in the session's SQLite, deciding the append
 * path's compactions across requests.
 */

import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CompactionsResponseBody, SessionStatusBody } from "../../src/api/schemas";
import { anthropicClient, freshTag, openaiClient } from "../support/gateway-helpers";
import {
  append,
  call,
  compactions,
  freshSession,
  status,
  stubFor,
  toolStep,
  waitFor,
} from "../support/helpers";

const SYSTEM = { role: "system", content: "You are a build assistant." };
const ASK = { role: "user", content: "Run the tests and fix what fails." };

type Reported = SessionStatusBody["bill"]["reported"];

async function reportedOnce(session: string): Promise<Reported> {
  await waitFor(async () => (await status(session)).bill.reported.turns === 1, "the usage");
  return (await status(session)).bill.reported;
}

describe("cached tokens from the gateway's answers", () => {
  const scenario = { cache: { read: 40, write: 12 } };

  for (const stream of [false, true]) {
    const how = stream ? "streamed" : "whole";

    it(`reads Anthropic's cache_read_input_tokens and cache_creation_input_tokens (${how})`, async () => {
      const session = freshSession("bill-anthropic");
      const client = anthropicClient(freshTag(), { session, scenario });
      const request = {
        model: "claude-sonnet-4-5",
        max_tokens: 256,
        system: "Be brief.",
        // Longer than what the usage says was cached: Anthropic's input_tokens is the rest.
        messages: [{ role: "user" as const, content: "What does the build do? ".repeat(20) }],
      };
      if (stream) await client.messages.stream(request).finalMessage();
      else await client.messages.create(request);
      const reported = await reportedOnce(session);
      expect(reported).toMatchObject({ turns: 1, cacheReadTokens: 40, cacheWriteTokens: 12 });
      // input_tokens leaves the cached ones out; the session counts every prompt token.
      expect(reported.inputTokens).toBeGreaterThan(52);
      expect(reported.dollars).toBeGreaterThan(0);
    });

    it(`reads Chat Completions' prompt_tokens_details.cached_tokens (${how})`, async () => {
      const session = freshSession("bill-chat");
      const client = openaiClient(freshTag(), { session, scenario });
      const request = {
        model: "gpt-4o",
        messages: [{ role: "user" as const, content: "What does the build do?" }],
      };
      if (stream) {
        const chunks = await client.chat.completions.create({
          ...request,
          stream: true,
          stream_options: { include_usage: true },
        });
        for await (const _chunk of chunks) {
          // drained
        }
      } else {
        await client.chat.completions.create(request);
      }
      expect(await reportedOnce(session)).toMatchObject({
        turns: 1,
        cacheReadTokens: 40,
        cacheWriteTokens: 0,
      });
    });

    it(`reads Responses' input_tokens_details.cached_tokens (${how})`, async () => {
      const session = freshSession("bill-responses");
      const client = openaiClient(freshTag(), { session, scenario });
      const request = { model: "gpt-5", input: "What does the build do?" };
      if (stream) {
        const events = await client.responses.create({ ...request, stream: true });
        for await (const _event of events) {
          // drained
        }
      } else {
        await client.responses.create(request);
      }
      expect(await reportedOnce(session)).toMatchObject({ turns: 1, cacheReadTokens: 40 });
    });
  }
});

describe("cached tokens from appends", () => {
  it("joins the append's usage to the context the client last fetched", async () => {
    const id = freshSession("bill-append");
    await append(id, { messages: [SYSTEM, ASK], model: "gpt-4o" });
    await call("GET", `/v1/sessions/${id}/context`);
    const appended = await append(id, {
      messages: [{ role: "assistant", content: "Running them." }],
      usage: { inputTokens: 30, cacheReadTokens: 20 },
    });
    expect(appended.status).toBe(200);
    const { bill } = await status(id);
    expect(bill.turns).toBe(1);
    expect(bill.reported).toMatchObject({ turns: 1, inputTokens: 30, cacheReadTokens: 20 });
  });

  it("refuses cached tokens over the input tokens, saying how to count them, and appends nothing", async () => {
    const id = freshSession("bill-append");
    await append(id, { messages: [SYSTEM, ASK], model: "gpt-4o" });
    const refused = await append(id, {
      messages: [{ role: "assistant", content: "Running them." }],
      usage: { inputTokens: 10, cacheReadTokens: 20 },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("cache_read_input_tokens");
    expect((await status(id)).messageCount).toBe(2);
  });
});

describe("the bill in the status and /compactions", () => {
  it("costs what the whole history does while nothing was compacted, and less once compactions keep the context small", async () => {
    const id = freshSession("bill-ratio");
    await append(id, { messages: [SYSTEM, ASK], model: "gpt-4o" });
    await call("PATCH", `/v1/sessions/${id}`, { body: { contextWindow: 16_000 } });
    await call("GET", `/v1/sessions/${id}/context`);
    for (let step = 1; step <= 3; step++) {
      await append(id, { messages: toolStep(step, 400) });
      await call("GET", `/v1/sessions/${id}/context`);
    }
    const before = (await status(id)).bill;
    expect(before.turns).toBe(4);
    expect(before.ratio).toBe(1);
    expect(before.cacheBusts).toBe(0);
    expect(before.model).toBe("gpt-4o");
    expect(before.dollars).toBeCloseTo(before.wholeHistoryDollars ?? -1, 12);

    // Far past the window: each fetch waits for a compaction, and the history keeps growing.
    for (let step = 4; step <= 40; step++) {
      await append(id, { messages: toolStep(step, 2_400) });
      await call("GET", `/v1/sessions/${id}/context`);
    }
    const after = (await status(id)).bill;
    expect(after.turns).toBe(41);
    expect(after.cacheBusts).toBeGreaterThan(0);
    expect(after.ratio ?? 1).toBeLessThan(1);
    expect(after.dollars ?? 0).toBeLessThan(after.wholeHistoryDollars ?? 0);
    const listed = (await call<CompactionsResponseBody>("GET", `/v1/sessions/${id}/compactions`))
      .body;
    expect(listed.compactions.length).toBeGreaterThan(0);
    expect(listed.bill).toEqual(after);
  });
});

describe("the cost policy's state in the session", () => {
  type CacheColumns = {
    cache_excess_tokens: number | null;
    cache_compacted_tokens: number | null;
    cache_stable_tokens: number | null;
  };
  const cacheColumns = (id: string) =>
    runInDurableObject(stubFor("alice", id), (_instance, state) => {
      return state.storage.sql
        .exec<CacheColumns>(
          "SELECT cache_excess_tokens, cache_compacted_tokens, cache_stable_tokens FROM condense_session",
        )
        .one();
    });
  const setCacheState = (id: string, excess: number, compacted: number) =>
    runInDurableObject(stubFor("alice", id), (_instance, state) => {
      state.storage.sql.exec(
        "UPDATE condense_session SET cache_excess_tokens = ?, cache_compacted_tokens = ?, cache_stable_tokens = 0",
        excess,
        compacted,
      );
    });

  it("starts it at each compaction and adds what each served turn read over it", async () => {
    const id = freshSession("cache-state");
    await append(id, { messages: [SYSTEM, ASK, ...toolStep(1, 400)], model: "gpt-4o" });
    expect(await cacheColumns(id)).toEqual({
      cache_excess_tokens: null,
      cache_compacted_tokens: null,
      cache_stable_tokens: null,
    });
    await append(id, {
      messages: Array.from({ length: 8 }, (_, i) => toolStep(i + 2, 2_400)).flat(),
    });
    const compacted = await call<{ compacted: boolean; tokens: number }>(
      "POST",
      `/v1/sessions/${id}/compact`,
      { body: {} },
    );
    expect(compacted.body.compacted).toBe(true);
    const after = await cacheColumns(id);
    expect(after.cache_excess_tokens).toBe(0);
    expect(after.cache_compacted_tokens).toBeGreaterThan(0);
    // The system prompt and the head were kept as they were.
    expect(after.cache_stable_tokens).toBeGreaterThan(0);
    await append(id, { messages: toolStep(20, 2_400) });
    await call("GET", `/v1/sessions/${id}/context`);
    const read = await cacheColumns(id);
    expect(read.cache_excess_tokens).toBeGreaterThan(0);
    // The same context fetched again is the same request: nothing more was read.
    await call("GET", `/v1/sessions/${id}/context`);
    expect((await cacheColumns(id)).cache_excess_tokens).toBe(read.cache_excess_tokens);
  });

  it("decides the append path's compaction with it: past the floor, only once the excess read pays for the bust", async () => {
    // Window 100k: the floor is 50k, the limit 75k (the 20k reserve's and 0.75's). ~60k is between.
    const steps = Array.from({ length: 100 }, (_, i) => toolStep(i + 1, 2_400)).flat();
    const scheduled = async (excess: number) => {
      const id = freshSession("cache-decides");
      await append(id, { messages: [SYSTEM, ASK], model: "gpt-4o" });
      await call("PATCH", `/v1/sessions/${id}`, { body: { contextWindow: 100_000 } });
      // The last compaction left 50k, none of it kept from before.
      await setCacheState(id, excess, 50_000);
      const appended = await append(id, { messages: steps });
      expect(appended.body.tokens).toBeGreaterThan(50_000);
      expect(appended.body.tokens).toBeLessThan(75_000);
      return appended.body.compaction.status;
    };
    // gpt-4o: a bust of (1 − 0.5) × 50k pays once 50k more tokens were read at 0.5; this turn reads ~10k.
    expect(await scheduled(0)).toBe("none");
    expect(await scheduled(100_000)).not.toBe("none");
  });

  it("compacts from the alarm once the provider's cache has gone cold, and bills a cold turn as a full write", async () => {
    // As above: ~60k in a 100k window, and an excess read that does not pay for the bust yet.
    const steps = Array.from({ length: 100 }, (_, i) => toolStep(i + 1, 2_400)).flat();
    const id = freshSession("cache-cold");
    const stub = stubFor("alice", id);
    await append(id, { messages: [SYSTEM, ASK], model: "gpt-4o" });
    await call("PATCH", `/v1/sessions/${id}`, { body: { contextWindow: 100_000 } });
    await setCacheState(id, 0, 50_000);
    expect((await append(id, { messages: steps })).body.compaction.status).toBe("none");
    await call("GET", `/v1/sessions/${id}/context`);
    // The answer's append arms the alarm for when the cache goes cold: gpt-4o's automatic
    // caching keeps a prefix 10 minutes after its last read.
    const answered = Date.now();
    await append(id, { messages: [{ role: "assistant", content: "Looking at the failures." }] });
    const alarm = await runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());
    expect(alarm).not.toBeNull();
    expect(alarm ?? 0).toBeGreaterThanOrEqual(answered + 10 * 60_000 - 5_000);
    expect(alarm ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(Date.now() + 10 * 60_000);
    // Still warm: the alarm does nothing.
    await runDurableObjectAlarm(stub);
    expect(await compactions(id)).toHaveLength(0);
    // Eleven minutes later (the turn's time moved back): cold, so the alarm compacts.
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE condense_turns SET at = at - ?", 11 * 60_000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const history = await compactions(id);
    expect(history).toHaveLength(1);
    expect(history[0]?.trigger).toBe("cold_cache");
    // The next turn, after the gap, reads nothing from the cache on either side of the bill.
    const before = (await status(id)).bill;
    await call("GET", `/v1/sessions/${id}/context`);
    const after = (await status(id)).bill;
    expect(after.turns).toBe(before.turns + 1);
    expect(after.cacheBusts).toBe(before.cacheBusts);
  });
});
