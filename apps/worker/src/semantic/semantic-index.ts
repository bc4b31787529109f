/**
 * @module semantic/semantic-index
 * Optional semantic recall, shared by the searches of memories and of
 * sessions, so neither imports the other's folder: with a Workers AI binding
 * (`AI`) and a Vectorize index (`VECTORIZE`) configured, texts are embedded
 * (`@cf/baai/bge-base-en-v1.5`) and kept in the index under their owner's
 * own namespace, and a search also ranks by embedding similarity, merged
 * with the BM25 ranking by reciprocal-rank fusion. Without the bindings
 * nothing here runs and FTS5 ranks alone. The index is an accelerator, never
 * the truth: callers serve a match only if their own store holds that id,
 * and a failing embedding or index call leaves the BM25 ranking as it is.
 *
 * The bindings are typed by the few methods used here (a real `Ai` and
 * `Vectorize` binding have them), so tests can hand in fakes.
 */

export const EMBEDDING_MODEL = "@cf/baai/bge-base-en-v1.5";

/** The part of a Workers AI binding this module calls. */
export interface EmbeddingRunner {
  run(model: string, input: { text: string[] }): Promise<unknown>;
}

/** The part of a Vectorize index binding this module calls. */
export interface VectorIndex {
  upsert(vectors: Array<{ id: string; values: number[]; namespace?: string }>): Promise<unknown>;
  deleteByIds(ids: string[]): Promise<unknown>;
  query(
    vector: number[],
    options: { topK: number; namespace?: string },
  ): Promise<{ matches: Array<{ id: string; score: number }> }>;
}

/**
 * One owner's part of the index. Vectorize namespaces are at most 64 bytes: an object's id (64 hex
 * digits) names one per user or per session.
 */
export class SemanticIndex {
  constructor(
    private readonly ai: EmbeddingRunner,
    private readonly index: VectorIndex,
    private readonly namespace: string,
  ) {}

  async #embed(texts: string[]): Promise<number[][]> {
    const output = await this.ai.run(EMBEDDING_MODEL, { text: texts });
    const data = (output as { data?: unknown }).data;
    if (
      !Array.isArray(data) ||
      data.length !== texts.length ||
      !data.every((row) => Array.isArray(row) && row.every((v) => typeof v === "number"))
    ) {
      throw new Error(`${EMBEDDING_MODEL} returned no embedding per text`);
    }
    return data as number[][];
  }

  /** Indexes (or re-indexes) entries by id. */
  async put(entries: ReadonlyArray<{ id: string; text: string }>): Promise<void> {
    if (entries.length === 0) return;
    const vectors = await this.#embed(entries.map((entry) => entry.text));
    await this.index.upsert(
      entries.map((entry, i) => ({
        id: entry.id,
        values: vectors[i] ?? [],
        namespace: this.namespace,
      })),
    );
  }

  async remove(ids: string[]): Promise<void> {
    if (ids.length > 0) await this.index.deleteByIds(ids);
  }

  /** Ids of the nearest entries to `query`, nearest first. */
  async rank(query: string, topK: number): Promise<string[]> {
    const [vector] = await this.#embed([query]);
    if (vector === undefined) return [];
    const result = await this.index.query(vector, { topK, namespace: this.namespace });
    return result.matches.map((match) => match.id);
  }
}

/** The semantic index of the object `namespace`, when both bindings are configured. */
export function semanticIndexFor(env: Env, namespace: string): SemanticIndex | undefined {
  if (env.AI === undefined || env.VECTORIZE === undefined) return undefined;
  return new SemanticIndex(env.AI, env.VECTORIZE, namespace);
}

/**
 * Reciprocal-rank fusion of rankings (ids best first): each id scores Σ 1 / (k + rank), so an id high
 * in either list rises, and one high in both rises most, without comparing BM25 with cosine scores.
 */
export function fuseRankings(rankings: readonly string[][], k = 60): Array<[string, number]> {
  const scores = new Map<string, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, index) => {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1));
    });
  }
  return [...scores].sort((a, b) => b[1] - a[1]);
}
