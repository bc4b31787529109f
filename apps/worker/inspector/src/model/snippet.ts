/**
 * @module model/snippet
 * A search snippet cut into plain and marked runs, for rendering as text
 * with the matches highlighted (never as HTML: the snippet quotes the
 * transcript). Reads the usual marker pairs a full-text engine is given:
 * `<mark>…</mark>`, `<b>…</b>`, `**…**`, `[[…]]` and `«…»`.
 */

export interface SnippetRun {
  text: string;
  marked: boolean;
}

const MARKED =
  /<mark>([\s\S]*?)<\/mark>|<b>([\s\S]*?)<\/b>|\*\*([\s\S]+?)\*\*|\[\[([\s\S]+?)\]\]|«([\s\S]+?)»/g;

export function snippetRuns(snippet: string): SnippetRun[] {
  const runs: SnippetRun[] = [];
  let last = 0;
  for (const match of snippet.matchAll(MARKED)) {
    if (match.index > last) runs.push({ text: snippet.slice(last, match.index), marked: false });
    const inner = match.slice(1).find((group) => group !== undefined) ?? "";
    if (inner !== "") runs.push({ text: inner, marked: true });
    last = match.index + match[0].length;
  }
  if (last < snippet.length) runs.push({ text: snippet.slice(last), marked: false });
  return runs;
}
