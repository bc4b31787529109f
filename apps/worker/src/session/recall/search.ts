/**
 * @module session/recall/search
 * Recall: the best matches of a query in the session's whole transcript, as
 * `search-index` holds it, each with whether it is still in the context.
 *
 * User text never reaches FTS5 as syntax: a query is cut into words, each
 * quoted as an FTS5 string (so `AND`, `NEAR`, `*`, `:`, `(`… are searched as
 * text), all words first and any word when no message has them all. An
 * SQLite error from the match is a 400 `invalid_query`, never a 500.
 *
 * With semantic recall configured (`semantic-recall`), a search is also given
 * the rowids a vector index found nearest the query; the two rankings are
 * fused by reciprocal rank, and only rows the index holds are served.
 */

import type { CompactionStrategy } from "../../api/compaction-strategy";
import { invalidQuery } from "../../api/errors";
import type { SearchResponseBody, SearchResultBody } from "../../api/schemas";
import { fuseRankings } from "../../semantic/semantic-index";
import { ftsQuery } from "../../user/fts-query";
import { currentGeneration } from "../context/generations";
import { readViewState } from "../store/view-state";
import { isBackfillComplete, PIECES_PER_SEQ } from "./search-index";

export type SearchRole = "system" | "developer" | "user" | "assistant" | "tool";

export interface SearchInput {
  q: string;
  limit: number;
  role?: SearchRole;
  after?: number;
}

/** Words of a query that count; the rest are dropped (a longer query ranks no better). */
const MAX_QUERY_WORDS = 32;
/** Tokens of context around the match in a snippet. */
const SNIPPET_TOKENS = 16;

/**
 * The FTS5 match expressions of `q` (`user/fts-query`): its words, each quoted, all required, and any
 * one of them.
 */
export function matchExpressions(q: string): { all: string; any: string } {
  const all = ftsQuery(q, "all", MAX_QUERY_WORDS);
  const any = ftsQuery(q, "any", MAX_QUERY_WORDS);
  if (all === undefined || any === undefined) {
    throw invalidQuery(
      q.trim() === ""
        ? "the query is empty: send the words to find in `q` (e.g. ?q=migration+ticket)"
        : "the query has no word to search for (letters or digits): send the words to find in `q`",
    );
  }
  return { all, any };
}

/** A message's best piece among a match's, ranked (its snippet is taken later: `withSnippets`). */
type MatchRow = {
  rowid: number;
  seq: number;
  role: string;
  toolCallId: string | null;
  toolName: string | null;
  rank: number;
};

/** The rows of a BM25 search and the match expression (all words, or any) that found them. */
type Bm25Match = { match: string; rows: MatchRow[] };

/**
 * The `WHERE` clause of a search of `condense_search`: `conditions` (with their `args`) and the
 * search's own filters, the messages after a seq and of a role.
 */
function whereClause(
  conditions: readonly string[],
  args: readonly (string | number)[],
  input: SearchInput,
): { where: string; args: (string | number)[] } {
  const all = [...conditions];
  const values = [...args];
  if (input.after !== undefined) {
    all.push("rowid >= ?");
    values.push((input.after + 1) * PIECES_PER_SEQ);
  }
  if (input.role !== undefined) {
    all.push("role = ?");
    values.push(input.role);
  }
  return { where: all.join(" AND "), args: values };
}

/** The query's words as `match` found no statement could search them: the query's 400. */
function unsearchable(error: unknown) {
  // Quoting leaves FTS5 nothing to parse; whatever still fails is the query's, not a 500.
  return invalidQuery(
    "the query could not be searched: send plain words in `q` (every word is searched as text)",
    { reason: error instanceof Error ? error.message : String(error) },
  );
}

function runMatch(sql: SqlStorage, match: string, input: SearchInput): MatchRow[] {
  const { where, args } = whereClause(
    ["condense_search MATCH ?", "rank MATCH 'bm25(1.0, 2.0)'"],
    [match],
    input,
  );
  try {
    // `ORDER BY rank` is sorted inside FTS5, so SQLite stops at the limit. No snippet here: a
    // snippet reads and tokenizes its piece's whole text (twice), and of these rows only the best
    // piece of each message, up to the limit, is answered (`withSnippets`).
    return sql
      .exec<MatchRow>(
        `SELECT rowid, rowid / ${PIECES_PER_SEQ} AS seq, role, tool_call_id AS toolCallId,
           tool_name AS toolName, rank
         FROM condense_search WHERE ${where}
         ORDER BY rank LIMIT ?`,
        ...args,
        // Pieces of one message may rank side by side: its best piece answers for it.
        input.limit * 2,
      )
      .toArray()
      .filter((row, index, rows) => rows.findIndex((other) => other.seq === row.seq) === index)
      .slice(0, input.limit);
  } catch (error) {
    throw unsearchable(error);
  }
}

/**
 * The snippets of the pieces `rowids` for `match` (the expression that found them), by rowid: the
 * same `snippet()` the ranked statement would have taken, for the rows answered only. `+rowid`
 * keeps the rowids from FTS5: handed one (`IN` runs as one `rowid = ?` per value), its snippet()
 * took milliseconds a row on a word of many rows (measured); scanning the match and keeping these
 * rows walks its doclists once, as the ranked statement does.
 */
function snippetsOf(
  sql: SqlStorage,
  match: string,
  rowids: readonly number[],
): Map<number, string | null> {
  if (rowids.length === 0) return new Map();
  try {
    const rows = sql.exec<{ rowid: number; snippet: string | null }>(
      `SELECT rowid, snippet(condense_search, -1, '«', '»', '…', ${SNIPPET_TOKENS}) AS snippet
       FROM condense_search
       WHERE condense_search MATCH ? AND +rowid IN (${rowids.map(() => "?").join(", ")})`,
      match,
      ...rowids,
    );
    return new Map([...rows].map((row) => [row.rowid, row.snippet]));
  } catch (error) {
    throw unsearchable(error);
  }
}

/** Seqs among `seqs` whose tool output a compaction pruned. */
function prunedSeqs(sql: SqlStorage, seqs: number[]): Set<number> {
  if (seqs.length === 0) return new Set();
  const rows = sql.exec<{ seq: number }>(
    `SELECT seq FROM condense_tool_outputs WHERE pruned_by IS NOT NULL AND seq IN (${seqs.map(() => "?").join(", ")})`,
    ...seqs,
  );
  return new Set([...rows].map((row) => row.seq));
}

/**
 * Seqs among `seqs` (covered by the view) whose message the view still holds verbatim: a compaction
 * keeps recent messages (and the head) as they were, stored as the same JSON bytes. Compared in SQL
 * by length and first chunk, so nothing is decoded; of two identical messages both count when the
 * view holds one, and a view of OpenAI items holds none.
 */
function keptInView(sql: SqlStorage, seqs: number[], strategy: CompactionStrategy): Set<number> {
  if (seqs.length === 0 || strategy === "openai") return new Set();
  const rows = sql.exec<{ seq: number }>(
    `SELECT t.seq FROM condense_transcript t
     WHERE t.seq IN (${seqs.map(() => "?").join(", ")})
       AND EXISTS (SELECT 1 FROM condense_view v
                   WHERE v.byte_length = t.byte_length AND v.chunk_count = t.chunk_count AND v.body = t.body)`,
    ...seqs,
  );
  return new Set([...rows].map((row) => row.seq));
}

/**
 * BM25 candidates a fused search considers per result asked for: a message just below the limit by
 * BM25 may still rise into it when its embedding is near (and each candidate costs a snippet).
 */
const BM25_CANDIDATES_PER_RESULT = 2;
/** Vector index candidates (topK) a search asks for per result (Vectorize answers at most 100). */
export const VECTOR_CANDIDATES_PER_RESULT = 4;

/** Words of `q` as the snippet of a vector-only hit marks them (letters and digits, lower case). */
function snippetWords(q: string): Set<string> {
  return new Set(
    q
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word !== ""),
  );
}

/**
 * A snippet of a row found by its embedding alone (FTS5's `snippet` needs a match): about
 * `SNIPPET_TOKENS` words of its stored text around the first word of the query it holds, if any,
 * that word marked «like this».
 */
export function textSnippet(body: string, q: string): string {
  const words = snippetWords(q);
  const tokens = body.split(/\s+/u).filter((token) => token !== "");
  const matches = (token: string) => words.has(token.toLowerCase().replace(/[^\p{L}\p{N}]/gu, ""));
  const hit = tokens.findIndex(matches);
  const from = hit < 0 ? 0 : Math.max(0, hit - Math.floor(SNIPPET_TOKENS / 2));
  const to = Math.min(tokens.length, from + SNIPPET_TOKENS);
  const text = tokens
    .slice(from, to)
    .map((token) => (matches(token) ? `«${token}»` : token))
    .join(" ");
  return `${from > 0 ? "…" : ""}${text}${to < tokens.length ? "…" : ""}`;
}

type StoredRow = {
  rowid: number;
  role: string;
  toolCallId: string | null;
  toolName: string | null;
  body: string;
};

/**
 * The rows among `rowids` the session's FTS table holds that pass the search's filters: a vector
 * index's answer is only a list of ids, and served only where this table agrees.
 */
function storedRows(sql: SqlStorage, rowids: readonly number[], input: SearchInput): StoredRow[] {
  if (rowids.length === 0) return [];
  const { where, args } = whereClause(
    [`rowid IN (${rowids.map(() => "?").join(", ")})`],
    rowids,
    input,
  );
  return sql
    .exec<StoredRow>(
      `SELECT rowid, role, tool_call_id AS toolCallId, tool_name AS toolName, body
       FROM condense_search WHERE ${where}`,
      ...args,
    )
    .toArray();
}

type RankedRow = Omit<MatchRow, "rank" | "rowid"> & { snippet: string | null; score: number };

/** The BM25 matches of `input.q` (all words, else any), best first, at most `limit` messages. */
function bm25Rows(sql: SqlStorage, input: SearchInput): Bm25Match {
  const { all, any } = matchExpressions(input.q);
  const rows = runMatch(sql, all, input);
  return rows.length === 0 && any !== all
    ? { match: any, rows: runMatch(sql, any, input) }
    : { match: all, rows };
}

/** `rows` of `found`'s, each with its snippet, as answered. */
function withSnippets(sql: SqlStorage, found: Bm25Match, rows: readonly MatchRow[]) {
  const snippets = snippetsOf(
    sql,
    found.match,
    rows.map((row) => row.rowid),
  );
  return rows.map(({ rowid, ...row }) => ({ ...row, snippet: snippets.get(rowid) ?? null }));
}

/**
 * BM25's messages and the vector index's (`nearest`: rowids, nearest first), fused by reciprocal
 * rank, best `input.limit` first. A message counts once in each ranking, at its best piece.
 */
function fusedRows(sql: SqlStorage, input: SearchInput, nearest: readonly number[]): RankedRow[] {
  const bm25 = bm25Rows(sql, { ...input, limit: input.limit * BM25_CANDIDATES_PER_RESULT });
  const bySeq = new Map(bm25.rows.map((row) => [row.seq, row]));
  const stored = new Map(storedRows(sql, nearest, input).map((row) => [row.rowid, row]));
  const vectorSeqs: number[] = [];
  const vectorRows = new Map<number, StoredRow>();
  for (const rowid of nearest) {
    const row = stored.get(rowid);
    const seq = Math.floor(rowid / PIECES_PER_SEQ);
    if (row === undefined || vectorRows.has(seq)) continue;
    vectorSeqs.push(seq);
    vectorRows.set(seq, row);
  }
  const fused = fuseRankings([
    bm25.rows.map((row) => String(row.seq)),
    vectorSeqs.map(String),
  ]).slice(0, input.limit);
  // Snippets of the BM25 candidates answered only.
  const candidates = fused.flatMap(([id]) => bySeq.get(Number(id)) ?? []);
  const answered = new Map(withSnippets(sql, bm25, candidates).map((row) => [row.seq, row]));
  return fused.flatMap(([id, score]): RankedRow[] => {
    const seq = Number(id);
    const matched = answered.get(seq);
    if (matched !== undefined) {
      const { role, toolCallId, toolName, snippet } = matched;
      return [{ seq, role, toolCallId, toolName, snippet, score }];
    }
    const row = vectorRows.get(seq);
    if (row === undefined) return [];
    return [
      {
        seq,
        role: row.role,
        toolCallId: row.toolCallId,
        toolName: row.toolName,
        snippet: textSnippet(row.body, input.q),
        score,
      },
    ];
  });
}

/**
 * The best matches of `input.q` in the session's index, most relevant first: by BM25, or, given the
 * rowids a vector index found nearest the query (`semantic-recall`), by BM25 and those fused. A
 * message is in the context when it is in the current generation, not a pruned tool output, and
 * after the last compaction's view or kept verbatim in it.
 */
export function searchSession(
  sql: SqlStorage,
  input: SearchInput,
  nearest?: readonly number[],
): SearchResponseBody {
  let rows: RankedRow[];
  if (nearest === undefined) {
    const found = bm25Rows(sql, input);
    rows = withSnippets(sql, found, found.rows).map(({ rank, ...row }) => ({
      ...row,
      score: -rank,
    }));
  } else rows = fusedRows(sql, input, nearest);
  const view = readViewState(sql);
  const coveredSeq = view?.coveredSeq ?? 0;
  const firstSeq = currentGeneration(sql).firstSeq;
  const pruned = prunedSeqs(
    sql,
    rows.map((row) => row.seq),
  );
  const covered = rows
    .map((row) => row.seq)
    .filter((seq) => seq <= coveredSeq && seq >= firstSeq && !pruned.has(seq));
  const kept = keptInView(sql, covered, view?.strategy ?? "local");
  const results: SearchResultBody[] = rows.map((row) => {
    const isPruned = pruned.has(row.seq);
    const current = row.seq >= firstSeq && !isPruned;
    return {
      seq: row.seq,
      role: row.role,
      toolCallId: row.toolCallId,
      toolName: row.toolName,
      snippet: row.snippet ?? "",
      score: row.score,
      inContext: current && (row.seq > coveredSeq || kept.has(row.seq)),
      pruned: isPruned,
    };
  });
  return { query: input.q, results, indexing: { complete: isBackfillComplete(sql) } };
}
