/**
 * @module session/recall/semantic-recall
 * Optional semantic recall for a session (`semantic/semantic-index`): with
 * the `AI` and `VECTORIZE` bindings, the pieces `search-index` indexes are
 * embedded in the background after their append commits (never in its
 * transaction, never before its answer), and a search also asks the vector
 * index for the pieces nearest the query, which `searchSession` fuses with
 * BM25. Without the bindings nothing here runs.
 *
 * The index is an accelerator, never the truth: a piece that failed to embed
 * is still found by BM25, and a vector is only served if the session's own
 * FTS table holds its row. Every call here logs its failure and returns
 * (nothing, or no ranking), so a failing AI or index leaves BM25 as it is.
 *
 * Vectors live in a namespace per session (the object's id, 64 hex digits:
 * Vectorize's namespace limit is 64 bytes). Vector ids are unique across a
 * whole index, not per namespace (`deleteByIds` takes no namespace), so an id
 * is the session's prefix and the FTS rowid (`<40 hex digits>.<rowid>`, at
 * most 64 bytes), never the bare rowid, which every session has.
 */

import { errorFields, logLine } from "../../log/log-lines";
import { type SemanticIndex, semanticIndexFor } from "../../semantic/semantic-index";
import { PIECES_PER_SEQ } from "./search-index";

/** Characters of a piece that are embedded: the embedding model reads 512 tokens, about this many. */
export const EMBED_CHARS = 2_000;
/** Pieces per embedding call (and upsert). */
export const EMBED_BATCH = 50;
/** Pieces one append embeds at most (a huge tool output is embedded by its first pieces only). */
export const EMBED_PIECES_PER_APPEND = 200;
/** Ids per `deleteByIds` call. */
const DELETE_BATCH = 1_000;
/** Hex digits of the object's id that prefix a vector id (160 bits: no two sessions share one). */
const ID_PREFIX_CHARS = 40;

export class SessionVectors {
  readonly #prefix: string;

  constructor(
    private readonly index: SemanticIndex,
    objectId: string,
  ) {
    this.#prefix = `${objectId.slice(0, ID_PREFIX_CHARS)}.`;
  }

  vectorId(rowid: number): string {
    return `${this.#prefix}${rowid}`;
  }

  /** The rowid of one of this session's vector ids; undefined for any other id. */
  rowidOf(id: string): number | undefined {
    if (!id.startsWith(this.#prefix)) return undefined;
    const rest = id.slice(this.#prefix.length);
    return /^\d{1,15}$/u.test(rest) ? Number(rest) : undefined;
  }

  /**
   * Embeds the indexed pieces of messages `firstSeq`…`lastSeq` and upserts them in batches. The
   * pieces are read before the first await (call it right after the append commits); the promise
   * never rejects.
   */
  async embedAppended(sql: SqlStorage, firstSeq: number, lastSeq: number): Promise<void> {
    let pieces = 0;
    try {
      const rows = sql
        .exec<{ rowid: number; text: string }>(
          `SELECT rowid, substr(body, 1, ${EMBED_CHARS}) AS text FROM condense_search
           WHERE rowid >= ? AND rowid < ? AND body != '' ORDER BY rowid LIMIT ?`,
          firstSeq * PIECES_PER_SEQ,
          (lastSeq + 1) * PIECES_PER_SEQ,
          EMBED_PIECES_PER_APPEND,
        )
        .toArray();
      pieces = rows.length;
      for (let from = 0; from < rows.length; from += EMBED_BATCH) {
        await this.index.put(
          rows
            .slice(from, from + EMBED_BATCH)
            .map((row) => ({ id: this.vectorId(row.rowid), text: row.text })),
        );
      }
    } catch (error) {
      // Those pieces stay found by BM25 alone.
      logLine({ type: "search_embed_failed", level: "warn", pieces, ...errorFields(error) });
    }
  }

  /**
   * Rowids of this session's pieces nearest to `query`, nearest first; undefined when the embedding
   * or the index failed (the search then ranks by BM25 alone, exactly as without the bindings).
   */
  async nearest(query: string, topK: number): Promise<number[] | undefined> {
    try {
      const ids = await this.index.rank(query, topK);
      return ids.flatMap((id) => {
        const rowid = this.rowidOf(id);
        return rowid === undefined ? [] : [rowid];
      });
    } catch (error) {
      logLine({ type: "search_semantic_failed", level: "warn", ...errorFields(error) });
      return undefined;
    }
  }

  /** Deletes the vectors of `rowids` (a deleted session's). The promise never rejects. */
  async forget(rowids: number[]): Promise<void> {
    try {
      for (let from = 0; from < rowids.length; from += DELETE_BATCH) {
        await this.index.remove(
          rowids.slice(from, from + DELETE_BATCH).map((rowid) => this.vectorId(rowid)),
        );
      }
    } catch (error) {
      logLine({ type: "search_vectors_delete_failed", level: "warn", ...errorFields(error) });
    }
  }
}

/** The vectors of the session object `objectId`, when both bindings are configured. */
export function sessionVectorsFor(env: Env, objectId: string): SessionVectors | undefined {
  const index = semanticIndexFor(env, objectId);
  return index === undefined ? undefined : new SessionVectors(index, objectId);
}

/** Every rowid of the session's FTS table (the ids its vectors may have; no text is read). */
export function indexedRowids(sql: SqlStorage): number[] {
  return sql
    .exec<{ rowid: number }>("SELECT rowid FROM condense_search")
    .toArray()
    .map((row) => row.rowid);
}
