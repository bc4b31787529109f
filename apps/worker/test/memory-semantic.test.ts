/**
 * @module test/memory-semantic
 * Optional semantic recall against fakes of the two bindings: a Workers AI
 * fake that embeds words by a small table of concepts (so "automobile" is
 * near "car" while sharing no word), and an in-memory Vectorize fake with
 * namespaces. With both bindings, memory search also finds entries by meaning
 * and fuses the rankings; one index shared by all users never leaks an entry
 * to another user; a failing embedding call leaves BM25 alone; without the
 * bindings nothing changes.
 */

import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  type EmbeddingRunner,
  fuseRankings,
  type VectorIndex,
} from "../src/semantic/semantic-index";
import { userStub } from "../src/user/user-stub";

const CONCEPTS: Record<string, number> = {
  car: 0,
  automobile: 0,
  vehicle: 0,
  coffee: 1,
  espresso: 1,
  deploy: 2,
  wrangler: 2,
  release: 2,
};

/** A Workers AI fake: one dimension per concept, one more for every other word. */
class FakeAi implements EmbeddingRunner {
  calls = 0;
  failing = false;
  async run(model: string, input: { text: string[] }): Promise<unknown> {
    this.calls++;
    if (this.failing) throw new Error("AI unavailable");
    expect(model).toBe("@cf/baai/bge-base-en-v1.5");
    return {
      shape: [input.text.length, 4],
      data: input.text.map((text) => {
        const vector = [0, 0, 0, 0.01];
        for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
          const concept = CONCEPTS[word];
          if (concept !== undefined) vector[concept] = (vector[concept] ?? 0) + 1;
        }
        return vector;
      }),
    };
  }
}

/** An in-memory Vectorize index with namespaces and cosine similarity. */
class FakeIndex implements VectorIndex {
  readonly vectors = new Map<string, { values: number[]; namespace: string | undefined }>();
  async upsert(vectors: Array<{ id: string; values: number[]; namespace?: string }>) {
    for (const v of vectors) this.vectors.set(v.id, { values: v.values, namespace: v.namespace });
    return { mutationId: "m" };
  }
  async deleteByIds(ids: string[]) {
    for (const id of ids) this.vectors.delete(id);
    return { mutationId: "m" };
  }
  async query(vector: number[], options: { topK: number; namespace?: string }) {
    const norm = (v: number[]) => Math.hypot(...v) || 1;
    const matches = [...this.vectors]
      .filter(([, v]) => v.namespace === options.namespace)
      .map(([id, v]) => ({
        id,
        score:
          v.values.reduce((sum, x, i) => sum + x * (vector[i] ?? 0), 0) /
          (norm(v.values) * norm(vector)),
      }))
      .filter((match) => match.score > 0.5)
      .sort((a, b) => b.score - a.score)
      .slice(0, options.topK);
    return { matches, count: matches.length };
  }
}

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
