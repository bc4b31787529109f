/**
 * @module test/support/semantic-fakes
 * Fakes of the two optional bindings semantic recall uses, shared by the
 * memory and session search tests: a Workers AI fake that embeds words by a
 * small table of concepts (so "automobile" is near "car" while sharing no
 * word), and an in-memory Vectorize fake with namespaces and cosine
 * similarity, whose ids are unique across the index as Vectorize's are.
 */

import { expect } from "vitest";
import type { EmbeddingRunner, VectorIndex } from "../../src/semantic/semantic-index";

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
export class FakeAi implements EmbeddingRunner {
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
export class FakeIndex implements VectorIndex {
  readonly vectors = new Map<string, { values: number[]; namespace: string | undefined }>();
  calls = 0;
  failingQueries = false;
  async upsert(vectors: Array<{ id: string; values: number[]; namespace?: string }>) {
    this.calls++;
    for (const v of vectors) this.vectors.set(v.id, { values: v.values, namespace: v.namespace });
    return { mutationId: "m" };
  }
  async deleteByIds(ids: string[]) {
    this.calls++;
    for (const id of ids) this.vectors.delete(id);
    return { mutationId: "m" };
  }
  async query(vector: number[], options: { topK: number; namespace?: string }) {
    this.calls++;
    if (this.failingQueries) throw new Error("Vectorize unavailable");
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
