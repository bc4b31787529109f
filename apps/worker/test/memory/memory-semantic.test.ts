/**
 * @module test/memory/memory-semantic
 * Optional semantic recall against fakes of the two bindings
 * (`semantic-fakes`). With both bindings, memory search also finds entries by meaning
 * and fuses the rankings; one index shared by all users never leaks an entry
 * to another user; a failing embedding call leaves BM25 alone; without the
 * bindings nothing changes.
 */

import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { fuseRankings } from "../../src/semantic/semantic-index";
import { userStub } from "../../src/user/user-stub";
import { FakeAi, FakeIndex } from "../support/semantic-fakes";

/** A user's object whose env carries the fakes (the deployed one has no such bindings). */
async function semanticUser(ai: FakeAi, index: FakeIndex) {
  const stub = userStub(env, `semantic-${crypto.randomUUID()}`);
  await runInDurableObject(stub, (instance) => {
    Object.assign(instance, { env: { ...env, AI: ai, VECTORIZE: index } });
  });
  return stub;
}

async function add(stub: Awaited<ReturnType<typeof semanticUser>>, text: string) {
  const result = await stub.createMemory({ text, kind: "fact" });
  if (result.ok) return result.value;
  throw new Error(`createMemory failed: ${JSON.stringify(result)}`);
}

async function search(stub: Awaited<ReturnType<typeof semanticUser>>, q: string) {
  const result = await stub.searchMemories(q, 10);
  if (result.ok) return result.value.results;
  throw new Error(`searchMemories failed: ${JSON.stringify(result)}`);
}

describe("semantic memory search (fakes of Workers AI and Vectorize)", () => {
  it("finds entries by meaning as well as by words, and keeps the index in step", async () => {
    const ai = new FakeAi();
    const index = new FakeIndex();
    const stub = await semanticUser(ai, index);
    const car = await add(stub, "drives an old car to the office");
    const coffee = await add(stub, "drinks espresso every morning");
    expect([...index.vectors.keys()].sort()).toEqual([car.id, coffee.id].sort());

    // No word in common: only the embeddings find it.
    const byMeaning = await search(stub, "automobile");
    expect(byMeaning.map((r) => r.memory.id)).toEqual([car.id]);
    expect(byMeaning[0]?.snippet).toBe("drives an old car to the office");
    // A word match that is also near in meaning ranks first.
    const both = await search(stub, "coffee espresso");
    expect(both.map((r) => r.memory.id)).toEqual([coffee.id]);

    await stub.deleteMemory(car.id);
    expect(index.vectors.has(car.id)).toBe(false);
    expect(await search(stub, "automobile")).toEqual([]);
    // A flush's operations are indexed too.
    const applied = await stub.applyMemoryOperations(
      [{ op: "add", text: "ships each release with wrangler", kind: "decision" }],
      { sessionId: "s" },
    );
    expect(index.vectors.has(applied.entries[0]?.id ?? "")).toBe(true);
    const relevant = await stub.relevantMemories("how do we deploy?", 2000);
    expect(relevant[0]?.text).toBe("ships each release with wrangler");
  });

  it("never serves another user's entry from an index all users share", async () => {
    const ai = new FakeAi();
    const index = new FakeIndex();
    const alice = await semanticUser(ai, index);
    const bob = await semanticUser(ai, index);
    const hers = await add(alice, "alice drives a vehicle");
    expect(await search(bob, "automobile")).toEqual([]);
    const his = await add(bob, "bob rides a bicycle");
    const herVector = index.vectors.get(hers.id);
    const bobsNamespace = index.vectors.get(his.id)?.namespace;
    expect(herVector?.namespace).toBeDefined();
    expect(bobsNamespace).toBeDefined();
    expect(herVector?.namespace).not.toBe(bobsNamespace);
    // Even her vector in bob's namespace (a corrupted index) is not served: bob's store lacks it.
    if (herVector !== undefined) herVector.namespace = bobsNamespace;
    expect(await search(bob, "automobile")).toEqual([]);
    expect(await search(bob, "vehicle")).toEqual([]);
  });

  it("falls back to BM25 when the embedding call fails", async () => {
    const ai = new FakeAi();
    const stub = await semanticUser(ai, new FakeIndex());
    ai.failing = true;
    const entry = await add(stub, "drives an old car");
    expect((await search(stub, "car")).map((r) => r.memory.id)).toEqual([entry.id]);
    expect(await search(stub, "automobile")).toEqual([]);
  });

  it("uses FTS5 alone without the bindings", async () => {
    const stub = userStub(env, `plain-${crypto.randomUUID()}`);
    const created = await stub.createMemory({ text: "drives an old car", kind: "fact" });
    expect(created.ok).toBe(true);
    const result = await stub.searchMemories("automobile", 10);
    expect(result.ok && result.value.results).toEqual([]);
  });
});

describe("fuseRankings", () => {
  it("ranks an id high in both lists above ids high in one", () => {
    const fused = fuseRankings([
      ["a", "b", "c"],
      ["b", "d", "a"],
    ]).map(([id]) => id);
    expect(fused.slice(0, 2)).toEqual(["b", "a"]);
    expect(fused.sort()).toEqual(["a", "b", "c", "d"]);
  });
});
