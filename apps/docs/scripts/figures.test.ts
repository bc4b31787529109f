/**
 * The measured figures the pages quote (issue 30): one value per figure on every page, taken from
 * the newest recorded bench run. A count of identifiers written on a page by hand, rather than
 * quoted between `<!-- figure:… -->` markers that `generate` fills, fails here: that is how the
 * pages came to say 1,731, 1,487, 446 and 394 for the same figure.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { FIGURE_MARKER, loadFigures, unquotedFigures, withFigures } from "./figures.ts";
import { markdownFiles } from "./snippets.ts";
import { repoRoot } from "./worker-source.ts";

const docsRoot = join(repoRoot, "apps", "docs");

/** The pages written by hand, where a figure is quoted (the generated copies are checked by `--check`). */
function writtenPages(): string[] {
  return [
    ...markdownFiles(docsRoot, "src/content/docs").filter(
      (path) =>
        // The bench runs' own output (the figures' source) and the notes' copies of docs/notes.
        path !== "src/content/docs/benchmarks/index.md" &&
        !path.startsWith("src/content/docs/notes/"),
    ),
    ...markdownFiles(docsRoot, "../../docs/notes"),
    ...markdownFiles(docsRoot, "templates"),
    "../../README.md",
    "../../CONTRIBUTING.md",
  ];
}

describe("the measured figures", () => {
  it("are each read from the newest recorded bench runs", () => {
    const figures = loadFigures(docsRoot);
    assert.match(figures.get("identifiers-kept") ?? "", /^[\d,]+ of [\d,]+$/);
    assert.match(figures.get("summary-transcripts") ?? "", /^\d+ transcripts$/);
    assert.match(figures.get("core-bench-date") ?? "", /^\d{4}-\d{2}-\d{2}$/);
  });

  it("fill their markers, and a marker naming no figure is an error", () => {
    const figures = new Map([["identifiers-kept", "9 of 9"]]);
    assert.equal(
      withFigures("kept <!-- figure:identifiers-kept -->1 of 1<!-- /figure -->.", figures, "p.md"),
      "kept <!-- figure:identifiers-kept -->9 of 9<!-- /figure -->.",
    );
    assert.throws(
      () => withFigures("<!-- figure:nope -->1<!-- /figure -->", figures, "p.md"),
      /p\.md: no figure "nope"/,
    );
  });

  it("are found when written by hand, and not when quoted", () => {
    assert.deepEqual(unquotedFigures("- **Every identifier kept**: 1,731 of 1,731 UUIDs survive"), [
      "identifier kept**: 1,731 of 1,731",
    ]);
    assert.equal(unquotedFigures("the bench keeps 446 of 446 identifiers").length, 1);
    assert.deepEqual(
      unquotedFigures(
        "keeps <!-- figure:identifiers-kept -->446 of 446<!-- /figure --> identifiers",
      ),
      [],
    );
  });

  it("find the demo's bill written by hand", () => {
    assert.deepEqual(unquotedFigures("gpt-4o prices: $1.97 vs $6.17 with prompt caching counted"), [
      "$1.97 vs $6.17",
    ]);
    assert.deepEqual(
      unquotedFigures("prices: <!-- figure:demo-bill -->$1.97 vs $6.17<!-- /figure --> counted"),
      [],
    );
  });

  it("read the demo's summary from its newest recorded run", () => {
    const figures = loadFigures(docsRoot);
    assert.match(figures.get("demo-bill") ?? "", /^\$\d+\.\d+ vs \$\d+\.\d+$/);
    assert.match(figures.get("demo-bill-ratio") ?? "", /^\d+\.\d+×$/);
    assert.match(figures.get("demo-tokens-saved") ?? "", /^\d+\.\d%$/);
    assert.match(
      figures.get("demo-bill-line") ?? "",
      /^`bill \(input, prompt caching\) .+ cache busts\)`$/,
    );
    assert.match(
      figures.get("demo-summary") ?? "",
      /^\n```text\nSummary\n[\s\S]+ledger completeness[^\n]+\n```\n$/,
    );
  });

  it("are quoted, never written by hand, on every written page", () => {
    const found = writtenPages().flatMap((path) =>
      unquotedFigures(readFileSync(join(docsRoot, path), "utf8")).map(
        (figure) => `${path}: "${figure}"`,
      ),
    );
    assert.deepEqual(
      found,
      [],
      `quote these from the bench results (scripts/figures.ts, <!-- figure:name -->…<!-- /figure -->) or link the benchmarks page:\n${found.join("\n")}`,
    );
  });

  it("hold their current value on every page that quotes them", () => {
    const figures = loadFigures(docsRoot);
    const stale = writtenPages().flatMap((path) =>
      [...readFileSync(join(docsRoot, path), "utf8").matchAll(FIGURE_MARKER)]
        .filter(([, name, value]) => figures.get(name ?? "") !== value)
        .map(([marker]) => `${path}: ${marker}`),
    );
    assert.deepEqual(stale, [], "run `pnpm --filter @condense/docs generate`");
  });
});
