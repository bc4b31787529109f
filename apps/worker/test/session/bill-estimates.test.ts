/**
 * @module test/bill-estimates
 * The bill a user can trust (issue 32, build 5): a session fed through the API without fetching
 * its context still bills each answer, estimated from the context the session held when it was
 * appended; each figure says whether it was measured (the provider's usage) or estimated; turns
 * served on a cold cache are counted; and the turn log is rolled up per compaction within a bound
 * without changing the bill.
 */

import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CompactionsResponseBody } from "../../src/api/schemas";
import { rollUpTurnLog, TURN_LOG } from "../../src/session/context/served-turns";
import {
  append,
  call,
  freshSession,
  runAlarmWithoutDelay,
  status,
  stubFor,
  toolStep,
} from "../support/helpers";

const SYSTEM = { role: "system", content: "You are a build assistant." };
const ASK = { role: "user", content: "Run the tests and fix what fails." };

const report = async (id: string) =>
  (await call<CompactionsResponseBody>("GET", `/v1/sessions/${id}/compactions`)).body;

/** A session fed step by step through `/messages` alone, in a 16k window, its compactions run. */
async function fedThroughAppends(steps: number): Promise<string> {
  const id = freshSession("bill-fed");
  await append(id, { messages: [SYSTEM, ASK], model: "gpt-4o" });
  await call("PATCH", `/v1/sessions/${id}`, { body: { contextWindow: 16_000 } });
  for (let step = 1; step <= steps; step++) {
    await append(id, { messages: toolStep(step, 2_400) });
    // Background compactions wait an hour in tests: run the one the append scheduled as a
    // deployment without a delay does, the cache still warm (an hour later it would be cold).
    await runAlarmWithoutDelay(stubFor("alice", id));
  }
  return id;
}

describe("a session fed through the API without fetching its context", () => {
  it("bills every answer, estimated from the context the session held, with the compactions' busts", async () => {
    const id = await fedThroughAppends(30);
    const { bill, costSeries, compactions } = await report(id);
    expect(compactions.length).toBeGreaterThan(0);
    expect(bill.turns).toBe(30);
    expect(costSeries).toHaveLength(30);
    // Each answer's request ended just before it: the head (seq 2), then every tool result.
    expect(costSeries.map((point) => point.lastSeq)).toEqual(
      Array.from({ length: 30 }, (_, index) => 2 + 2 * index),
    );
    expect(bill.basis).toBe("estimated");
    expect(bill.measuredTurns).toBe(0);
    expect(costSeries.every((point) => point.basis === "estimated")).toBe(true);
    expect(bill.cacheBusts).toBeGreaterThan(0);
    expect(bill.ratio ?? 1).toBeLessThan(1);
    expect(bill.coldTurns).toBe(0);
  });

  it("takes a fetched context as the turn it served: no estimate beside it", async () => {
    const id = freshSession("bill-fed");
    await append(id, { messages: [SYSTEM, ASK], model: "gpt-4o" });
    await call("GET", `/v1/sessions/${id}/context`);
    await append(id, { messages: toolStep(1, 400) });
    expect((await report(id)).costSeries.map((point) => point.lastSeq)).toEqual([2]);
    // The next answer came without a fetch: estimated at the context before it.
    await append(id, { messages: toolStep(2, 400) });
    const { bill, costSeries } = await report(id);
    expect(costSeries.map((point) => point.lastSeq)).toEqual([2, 4]);
    expect(bill.turns).toBe(2);
    // Two answers in one append: one turn each.
    await append(id, { messages: [...toolStep(3, 400), ...toolStep(4, 400)] });
    expect((await report(id)).costSeries.map((point) => point.lastSeq)).toEqual([2, 4, 6, 8]);
  });
  it("prices an estimated answer with the session's pinned messages, counted when it is billed", async () => {
    const plain = freshSession("bill-pinned");
    const pinned = freshSession("bill-pinned");
    const rules = {
      role: "system",
      content: `House rules: ${"keep every test green. ".repeat(200)}`,
    };
    await call("PATCH", `/v1/sessions/${pinned}`, { body: { pinned: [rules] } });
    for (const id of [plain, pinned]) {
      await append(id, { messages: [SYSTEM, ASK], model: "gpt-4o" });
      // A user's message bills nothing; the answer after it is estimated.
      await append(id, { messages: [{ role: "user", content: "And the lint too." }] });
      await append(id, { messages: toolStep(1, 400) });
    }
    const [without, withPinned] = await Promise.all([report(plain), report(pinned)]);
    expect(without.costSeries).toHaveLength(1);
    expect(withPinned.costSeries).toHaveLength(1);
    // The pinned rules (about 1,000 tokens) are part of every request the answer came from.
    const added =
      (withPinned.costSeries[0]?.costTokens ?? 0) - (without.costSeries[0]?.costTokens ?? 0);
    expect(added).toBeGreaterThan(900);
  });
});

describe("a context read to look at it", () => {
  it("is no model request: ?peek=true serves it without a turn in the bill", async () => {
    const id = freshSession("bill-peek");
    await append(id, { messages: [SYSTEM, ASK, ...toolStep(1, 400)], model: "gpt-4o" });
    const peeked = await call<{ messages: unknown[] }>(
      "GET",
      `/v1/sessions/${id}/context?peek=true`,
    );
    expect(peeked.status).toBe(200);
    expect(peeked.body.messages.length).toBe(4);
    // The one turn is the first answer's (estimated at seq 2), not the look.
    expect((await status(id)).bill.turns).toBe(1);
    // The answer appended after a look is billed (estimated) as with no read at all.
    await append(id, { messages: toolStep(2, 400) });
    expect((await report(id)).costSeries.map((point) => point.lastSeq)).toEqual([2, 4]);
    const refused = await call("GET", `/v1/sessions/${id}/context?peek=yes`);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("peek");
  });
});

describe("which figure is measured and which estimated", () => {
  it("prices a turn whose usage came with the append as the provider counted it", async () => {
    const id = freshSession("bill-basis");
    await append(id, { messages: [SYSTEM, ASK], model: "gpt-4o" });
    await call("GET", `/v1/sessions/${id}/context`);
    await append(id, {
      messages: toolStep(1, 400),
      usage: { inputTokens: 3_000, cacheReadTokens: 1_000 },
    });
    const measured = await report(id);
    expect(measured.bill.basis).toBe("usage");
    expect(measured.bill.measuredTurns).toBe(1);
    expect(measured.costSeries.map((point) => point.basis)).toEqual(["usage"]);
    // gpt-4o reads at half price: 1,000 read and 2,000 uncached.
    expect(measured.bill.costTokens).toBe(2_500);
    await append(id, { messages: toolStep(2, 400) });
    const mixed = await report(id);
    expect(mixed.bill.basis).toBe("mixed");
    expect(mixed.costSeries.map((point) => point.basis)).toEqual(["usage", "estimated"]);
  });
});

describe("cold turns", () => {
  it("counts a turn served after the cache's lifetime in the bill", async () => {
    const id = freshSession("bill-cold");
    await append(id, { messages: [SYSTEM, ASK], model: "gpt-4o" });
    await call("GET", `/v1/sessions/${id}/context`);
    await append(id, { messages: toolStep(1, 400) });
    expect((await status(id)).bill.coldTurns).toBe(0);
    // Eleven minutes later (the turn's time moved back): gpt-4o's cache holds a prefix for 10.
    await runInDurableObject(stubFor("alice", id), (_instance, state) => {
      state.storage.sql.exec("UPDATE condense_turns SET at = at - ?", 11 * 60_000);
    });
    await call("GET", `/v1/sessions/${id}/context`);
    const { bill } = await status(id);
    expect(bill.turns).toBe(2);
    expect(bill.coldTurns).toBe(1);
    expect((await report(id)).bill.coldTurns).toBe(1);
  });
});

describe("the turn log within a bound", () => {
  type Counts = { rows: number; single: number };
  const counts = (id: string) =>
    runInDurableObject(stubFor("alice", id), (_instance, state) =>
      state.storage.sql
        .exec<Counts>(
          "SELECT COUNT(*) AS rows, COUNT(*) - COUNT(rolled) AS single FROM condense_turns",
        )
        .one(),
    );

  it("rolls old turns up, one row per compaction, and the bill before and after is the same", async () => {
    const id = await fedThroughAppends(30);
    const before = await report(id);
    expect((await counts(id)).rows).toBe(30);
    await runInDurableObject(stubFor("alice", id), (_instance, state) => {
      rollUpTurnLog(state.storage.sql, "gpt-4o", 5);
    });
    const rolled = await counts(id);
    expect(rolled.single).toBe(5);
    // The 25 older turns: at most one row for each stretch between compactions.
    expect(rolled.rows - rolled.single).toBeLessThanOrEqual(before.compactions.length + 1);
    expect(rolled.rows - rolled.single).toBeGreaterThan(0);
    const after = await report(id);
    expect(after.bill).toEqual(before.bill);
    expect(after.costSeries.at(-1)).toEqual(before.costSeries.at(-1));
    expect(after.costSeries.length).toBe(rolled.rows);
    // Rolled up again with the rows rolled before: still the same bill.
    await runInDurableObject(stubFor("alice", id), (_instance, state) => {
      rollUpTurnLog(state.storage.sql, "gpt-4o", 1);
    });
    expect((await report(id)).bill).toEqual(before.bill);
    // The usage of the newest turn still joins it.
    await call("GET", `/v1/sessions/${id}/context`);
    await append(id, {
      messages: [{ role: "assistant", content: "Done." }],
      usage: { inputTokens: 5_000, cacheReadTokens: 4_000 },
    });
    expect((await status(id)).bill.measuredTurns).toBe(1);
  });

  it("keeps the log within its bound as turns are served", async () => {
    const id = freshSession("bill-bound");
    await append(id, { messages: [SYSTEM, ASK], model: "gpt-4o" });
    // A long log written directly (serving as many contexts would take minutes), ending at seq 1 so
    // the context served next is a turn of its own, whose id is the one that triggers a rollup.
    const logged = TURN_LOG.keep + TURN_LOG.every + 50;
    await runInDurableObject(stubFor("alice", id), (_instance, state) => {
      const sql = state.storage.sql;
      for (let turn = 1; turn <= logged; turn++) {
        sql.exec(
          `INSERT INTO condense_turns (at, generation, last_seq, compaction_id, model, tokens,
             reused_tokens, whole_tokens, whole_reused_tokens) VALUES (?, 1, 1, 0, 'gpt-4o', ?, ?, ?, ?)`,
          Date.now(),
          2_000 + turn,
          2_000 + turn - 1,
          2_000 + turn,
          2_000 + turn - 1,
        );
      }
      const next = Math.ceil((logged + 1) / TURN_LOG.every) * TURN_LOG.every;
      sql.exec("UPDATE sqlite_sequence SET seq = ? WHERE name = 'condense_turns'", next - 1);
    });
    const before = (await status(id)).bill;
    expect(before.turns).toBe(logged);
    await call("GET", `/v1/sessions/${id}/context`);
    const after = await counts(id);
    expect(after.single).toBeLessThanOrEqual(TURN_LOG.keep + TURN_LOG.every);
    expect(after.rows).toBeLessThan(logged);
    expect((await status(id)).bill.turns).toBe(logged + 1);
  });
});
