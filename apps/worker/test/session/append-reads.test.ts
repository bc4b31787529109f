/**
 * @module test/session/append-reads
 * What an append reads (issue 29: append to a 200k-token session as fast as before the bill, the
 * cost policy's state and the cold cache's alarm joined it). The context's size is the session's
 * counters, not a sum over its transcript: an append to a session that never compacted sums no
 * transcript row however long the session is, its answer billed or not; after a compaction only
 * the messages on the shorter side of the compaction's cut are summed. The figures stay exact.
 */

import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { contextSize } from "../../src/session/context/context-measure";
import { MessageStore } from "../../src/session/store/message-store";
import { sessionScope } from "../../src/session/store/session-scope";
import {
  append,
  call,
  conversation,
  freshSession,
  runAlarmWhenDue,
  stubFor,
  toolStep,
} from "../support/helpers";

type Exec = (query: string, ...bindings: unknown[]) => unknown;

/** Every SQL statement the objects of this isolate run, while recording. */
const statements: string[] = [];
let restore: (() => void) | undefined;

/** Records the statements of every object's storage (they share SqlStorage's prototype). */
async function recordStatements(id: string): Promise<void> {
  await runInDurableObject(stubFor("alice", id), (_instance, state) => {
    const proto = Object.getPrototypeOf(state.storage.sql) as { exec: Exec };
    const original = proto.exec;
    proto.exec = function (this: unknown, query: string, ...bindings: unknown[]) {
      statements.push(query.replace(/\s+/g, " "));
      return original.call(this, query, ...bindings);
    };
    restore = () => {
      proto.exec = original;
    };
  });
}

afterEach(() => {
  restore?.();
  restore = undefined;
  statements.length = 0;
});

/** The statements that sum transcript rows (the context's size, a turn's whole history). */
const transcriptSums = () =>
  statements.filter((s) => /SUM\(tokens\).*FROM condense_transcript/.test(s));

/** The context's size as the session's transcript sums it, row by row. */
async function summedSize(id: string): Promise<{ tokens: number; count: number }> {
  return runInDurableObject(stubFor("alice", id), (_instance, state) => {
    const sql = state.storage.sql;
    const covered =
      sql
        .exec<{ covered: number }>("SELECT covered_seq AS covered FROM condense_view_state")
        .toArray()[0]?.covered ?? 0;
    const view = sql
      .exec<{ tokens: number }>("SELECT tokens FROM condense_view_state")
      .toArray()[0]?.tokens;
    const viewCount = sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM condense_view").one().n;
    const after = sql
      .exec<{ tokens: number | null; count: number }>(
        "SELECT SUM(tokens) AS tokens, COUNT(*) AS count FROM condense_transcript WHERE seq > ?",
        covered,
      )
      .one();
    return { tokens: (view ?? 0) + (after.tokens ?? 0), count: viewCount + after.count };
  });
}

async function storedSize(id: string): Promise<{ tokens: number; count: number }> {
  return runInDurableObject(stubFor("alice", id), (_instance, state) => {
    return contextSize(
      sessionScope(() => state.storage, new MessageStore(state.storage.sql), undefined),
    );
  });
}

const billedTurns = async (id: string) =>
  (await call<{ bill: { turns: number } }>("GET", `/v1/sessions/${id}/compactions`)).body.bill
    .turns;

describe("an append's reads", () => {
  it("sums no transcript row on a session that never compacted, answers billed or not", async () => {
    const id = freshSession("append-reads");
    await append(id, { messages: conversation(30), model: "gpt-4o" });
    const turnsBefore = await billedTurns(id);
    await recordStatements(id);
    const user = await append(id, { messages: [{ role: "user", content: "go on" }] });
    const answer = await append(id, { messages: [{ role: "assistant", content: "on it" }] });
    const step = await append(id, { messages: toolStep(31) });
    // The list's report, coalesced after the appends, reads the context's size too.
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect([user.status, answer.status, step.status]).toEqual([200, 200, 200]);
    expect(transcriptSums()).toEqual([]);
    restore?.();
    // The answer reports the size the transcript sums to, and the bill billed both answers.
    const summed = await summedSize(id);
    expect(step.body.messageCount).toBe(summed.count);
    expect(step.body.tokens).toBe(summed.tokens);
    expect(await billedTurns(id)).toBe(turnsBefore + 2);
  });

  it("after a compaction, sums only the shorter side of its cut and gets the same size", async () => {
    const id = freshSession("append-reads-compacted");
    await append(id, { messages: conversation(2), model: "gpt-4o" });
    await call("PATCH", `/v1/sessions/${id}`, { body: { contextWindow: 16_000 } });
    for (let step = 3; step <= 14; step++) {
      await append(id, { messages: toolStep(step, 2_400) });
      await runAlarmWhenDue(stubFor("alice", id));
    }
    const compacted = await call<{ compactions: unknown[] }>(
      "GET",
      `/v1/sessions/${id}/compactions`,
    );
    expect(compacted.body.compactions.length).toBeGreaterThan(0);
    await recordStatements(id);
    await append(id, { messages: [{ role: "user", content: "go on" }] });
    await new Promise((resolve) => setTimeout(resolve, 120));
    restore?.();
    // Every sum of the append is over a range that ends or starts at the cut, never the whole.
    expect(transcriptSums().every((s) => /seq (>|<=) \?/.test(s))).toBe(true);
    expect(await storedSize(id)).toEqual(await summedSize(id));
  });
});
