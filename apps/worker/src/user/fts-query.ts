/**
 * @module user/fts-query
 * User text as an FTS5 query that can only mean "these words", for memory
 * search and session search (`session/recall/search-index`) alike: every word is
 * quoted as a string (a `"` inside doubled), so operators (AND, OR, NOT, NEAR,
 * `*`, `^`, column filters, parentheses) are matched as words or dropped, never
 * obeyed. Words are cut at whitespace and at control characters: the tokenizer
 * separates words there too, and a NUL inside a quoted word would end the
 * query's string early in SQLite ("unterminated string"). Words without a
 * letter or digit are dropped, since the tokenizer would leave an empty phrase.
 */

/** At most this many words reach the query (a context's recent text is long; the first words suffice). */
const MAX_TERMS = 64;

/** The distinct words of `text` that hold a letter or digit, in order. */
export function queryTerms(text: string, max = MAX_TERMS): string[] {
  const terms: string[] = [];
  const seen = new Set<string>();
  for (const word of text.split(/[\s\p{Cc}]+/u)) {
    if (!/[\p{L}\p{N}]/u.test(word)) continue;
    const key = word.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    terms.push(word);
    if (terms.length >= max) break;
  }
  return terms;
}

/**
 * The MATCH expression for `text`: its words quoted, all required (`"all"`) or any of them (`"any"`,
 * ranked by BM25 so entries matching more words come first). Undefined when no word is left.
 */
export function ftsQuery(text: string, mode: "all" | "any", max = MAX_TERMS): string | undefined {
  const terms = queryTerms(text, max).map((term) => `"${term.replaceAll('"', '""')}"`);
  if (terms.length === 0) return undefined;
  return terms.join(mode === "all" ? " " : " OR ");
}
