/**
 * The flush before compaction: with `memory` on, a compaction hands what the compacted range says
 * should outlive the session to the user's memory (a fake sink here), through the LLM's memory tool
 * calls when a summarizer is configured, else through the deterministic pass; a flush that fails,
 * in the model or in the sink, never fails the compaction, and nothing it writes enters the context.
 */

import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { MemoryEntry, MemoryOperation } from "@condense/core";
import { scenarioModel } from "@condense/test-servers";
import { describe, expect, it } from "vitest";
import type { ContextResponseBody, ManualCompactResponseBody } from "../../src/api/schemas";
import { type MemorySink, userMemorySink } from "../../src/session/compaction/memory-flush";
import { runCompaction } from "../../src/session/compaction/run";
import type { SessionObject } from "../../src/session/session-object";
import { MessageStore } from "../../src/session/store/message-store";
import { sessionScope } from "../../src/session/store/session-scope";
import {
  append,
  call,
  conversation,
  createSmallSession,
  freshSession,
  stubFor,
  textOf,
} from "../support/helpers";

/** A memory store in the test's memory, recording what it was asked to apply. */
function fakeSink(options: { fail?: "memories" | "apply" } = {}) {
  const applied: Array<{ ops: MemoryOperation[]; source: { sessionId: string } }> = [];
  const sink: MemorySink = {
    async memories(): Promise<MemoryEntry[]> {
      if (options.fail === "memories") throw new Error("memory store unavailable");
      return [];
    },
    async apply(ops, source) {
      if (options.fail === "apply") throw new Error("memory store unavailable");
      applied.push({ ops, source });
      return { applied: ops.length };
    },
  };
  return { sink, applied };
}

/** A session with memory on whose range holds the user's "always use pnpm". */
async function sessionWithStatement(settings: Record<string, unknown> = {}): Promise<string> {
  const id = freshSession();
  await createSmallSession(id, { memory: true, ...settings });
  await append(id, {
    messages: [
      { role: "user", content: "Always use pnpm. Never push to main." },
      { role: "assistant", content: "Noted. Always use yarn." },
      ...conversation(12).slice(2),
    ],
  });
  return id;
}

const noLlm = { ...env, SUMMARIZER_BASE_URL: "", SUMMARIZER_API_KEY: "" } as Env;

/** Runs one forced compaction inside the session's object with `testEnv` and `sink`. */
async function compactWith(id: string, testEnv: Env, sink: MemorySink) {
  return runInDurableObject(stubFor("alice", id), (_instance, state) =>
    runCompaction(
      sessionScope(() => state.storage, new MessageStore(state.storage.sql), testEnv.DEFAULT_MODEL),
      testEnv,
      "manual",
      { force: true },
      () => sink,
    ),
  );
}

describe("memory flush before compaction", () => {
  it("records the user's 'always use pnpm' from the compacted range without an LLM, with its seq", async () => {
    const id = await sessionWithStatement();
    const { sink, applied } = fakeSink();
    const result = await compactWith(id, noLlm, sink);
    expect(result.status).toBe("committed");
    expect(applied).toHaveLength(1);
    expect(applied[0]?.source).toEqual({ sessionId: id });
    const ops = applied[0]?.ops ?? [];
    expect(ops).toEqual([
      { op: "add", text: "Always use pnpm.", kind: "preference", sourceSeq: expect.any(Number) },
      { op: "add", text: "Never push to main.", kind: "constraint", sourceSeq: expect.any(Number) },
    ]);
    // The assistant's "Always use yarn." is data, not the user's word.
    expect(JSON.stringify(ops)).not.toContain("yarn");
    const transcript = await call<{ messages: Array<{ seq: number; message: unknown }> }>(
      "GET",
      `/v1/sessions/${id}/transcript?limit=1000`,
    );
    const first = ops[0];
    const seq = first?.op === "add" ? first.sourceSeq : undefined;
    const source = transcript.body.messages.find((row) => row.seq === seq);
    expect(textOf(source?.message)).toContain("Always use pnpm.");

    // A second compaction does not flush the same messages again.
    await append(id, { messages: conversation(6).slice(2) });
    await compactWith(id, noLlm, sink);
    expect(applied.flatMap((entry) => entry.ops)).toHaveLength(2);
  });

  it("does nothing with memory off", async () => {
    const id = await sessionWithStatement({ memory: false });
    const { sink, applied } = fakeSink();
    expect((await compactWith(id, noLlm, sink)).status).toBe("committed");
    expect(applied).toEqual([]);
  });

  it("a failing sink never fails the compaction", async () => {
    for (const fail of ["memories", "apply"] as const) {
      const id = await sessionWithStatement();
      const { sink } = fakeSink({ fail });
      const result = await compactWith(id, noLlm, sink);
      expect(result.status).toBe("committed");
    }
  });

  it("applies the LLM's valid memory tool calls, drops the invalid and secret ones, and keeps them out of the context", async () => {
    const id = await sessionWithStatement({
      summarizerModel: scenarioModel({ name: "flush", memory: true }),
    });
    const { sink, applied } = fakeSink();
    await runInDurableObject(stubFor("alice", id), (instance: SessionObject) => {
      instance.memorySinks = () => sink;
    });
    const manual = await call<ManualCompactResponseBody>("POST", `/v1/sessions/${id}/compact`, {
      body: {},
    });
    expect(manual.status).toBe(200);
    expect(applied.map((entry) => entry.ops)).toEqual([
      [{ op: "add", text: "Prefers pnpm over npm", kind: "preference" }],
    ]);
    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(JSON.stringify(context.body.messages)).not.toContain("Prefers pnpm over npm");
    expect(JSON.stringify(context.body.messages)).not.toContain("Recorded what matters");
  });

  it("a failing LLM falls back to the deterministic pass and does not fail the compaction", async () => {
    const id = await sessionWithStatement({
      summarizerModel: scenarioModel({ name: "flush", fail: 500 }),
    });
    const { sink, applied } = fakeSink();
    const result = await compactWith(id, env, sink);
    expect(result.status).toBe("committed");
    expect(applied.flatMap((entry) => entry.ops).map((op) => op.op === "add" && op.text)).toEqual([
      "Always use pnpm.",
      "Never push to main.",
    ]);
  });

  it("with recall on, the summary names the recall tool once", async () => {
    const id = await sessionWithStatement({ recall: true, memory: false });
    const result = await compactWith(id, noLlm, fakeSink().sink);
    expect(result.status).toBe("committed");
    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    const text = JSON.stringify(context.body.messages);
    expect(text.split("recall them with the `recall` tool").length - 1).toBe(1);

    const off = await sessionWithStatement({ recall: false, memory: false });
    await compactWith(off, noLlm, fakeSink().sink);
    const plain = await call<ContextResponseBody>("GET", `/v1/sessions/${off}/context`);
    expect(JSON.stringify(plain.body.messages)).not.toContain("recall them with");
  });

  it("writes through the user's own object: the user reads the entry in /v1/memory, another user does not", async () => {
    const id = await sessionWithStatement();
    // The sink is made inside the session's object, as the object makes it: a stub is bound to the
    // context that created it.
    const result = await runInDurableObject(stubFor("alice", id), (_instance, state) =>
      runCompaction(
        sessionScope(() => state.storage, new MessageStore(state.storage.sql), noLlm.DEFAULT_MODEL),
        noLlm,
        "manual",
        { force: true },
        userMemorySink,
      ),
    );
    expect(result.status).toBe("committed");
    const mine = await call<{ memories: MemoryEntry[] }>("GET", "/v1/memory?limit=100");
    const texts = mine.body.memories
      .filter((memory) => memory.sourceSession === id)
      .map((memory) => memory.text);
    expect(texts).toEqual(expect.arrayContaining(["Always use pnpm.", "Never push to main."]));
    const theirs = await call<{ memories: MemoryEntry[] }>("GET", "/v1/memory?limit=100", {
      as: "bob",
    });
    expect(theirs.body.memories.some((memory) => memory.sourceSession === id)).toBe(false);
  });
});
