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
import type { BenchRecord } from "./benchmarks.ts";
import {
  loadFigures,
  SPEED_HEADER,
  speedFigures,
  staleFigures,
  unquotedFigures,
  withFigures,
} from "./figures.ts";
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
      staleFigures(readFileSync(join(docsRoot, path), "utf8"), figures).map(
        (marker) => `${path}: ${marker}`,
      ),
    );
    assert.deepEqual(stale, [], "run `pnpm --filter @condense/docs generate`");
  });
});

/** A `pnpm bench speed` record whose summary table has these rows. */
function speedRecord(rows: string[], date = "2026-11-29T15:00:00.000Z"): BenchRecord {
  return {
    date,
    durationSeconds: 900,
    command: "pnpm bench speed",
    machine: {
      cpu: "AMD EPYC 7B13",
      cores: 2,
      memoryGiB: 8,
      os: "linux 6.1",
      node: "v24.21.0",
      loadAverageBefore: [9.1, 8, 7.5],
      freeMemoryGiBBefore: 3,
    },
    output: [
      "figures printed by the sections",
      "",
      "## Speed figures",
      "",
      SPEED_HEADER,
      "| --- | --- | --- | --- | --- |",
      ...rows,
      "",
      "load average (1 min): 9.1 before the run, 12.0 after; the run took 900 s",
      "",
    ].join("\n"),
  };
}

describe("issue 29's speed figures", () => {
  const row =
    "| cold start | 154.0 ms | gpt-tokenizer 616.0 ms: 0.25× | ≤ 40 ms or ≤ 0.25× | met |";

  it("are the summary table of the newest `pnpm bench speed` run, with its date, machine and command", () => {
    const block = speedFigures(speedRecord([row])) ?? "";
    assert.match(
      block,
      /^\n\nRecorded 2026-11-29 by `pnpm bench speed` \(900 s, `apps\/docs\/bench-results\/2026-11-29-speed\.json`\) on AMD EPYC 7B13, 2 cores, Node 24\.21\.0, load average 9\.1 \/ 8 \/ 7\.5 \(1, 5 and 15 minutes\) when the recording began; the run's load average \(1 min\): 9\.1 before the run/,
    );
    assert.match(block, /the run took 900 s\.\n\n\| figure \| value \|/);
    assert.ok(block.includes(`\n${row}\n\n`), block);
    const figures = loadFigures(docsRoot);
    assert.match(figures.get("speed-figures") ?? "", /\n\| cold start: import \+ first count/);
    assert.match(figures.get("speed-date") ?? "", /^\d{4}-\d{2}-\d{2}$/);
  });

  it("are not read from a run whose table is missing or has other columns", () => {
    assert.equal(speedFigures(speedRecord([])), undefined);
    assert.equal(speedFigures({ ...speedRecord([row]), output: "no summary" }), undefined);
    assert.equal(speedFigures(speedRecord(["| cold start | 154.0 ms | met |"])), undefined);
  });

  it("make `generate --check` fail on the measured-figures page when a newer run is recorded", () => {
    const page = readFileSync(
      join(docsRoot, "src/content/docs/benchmarks/measured-figures.md"),
      "utf8",
    );
    const figures = loadFigures(docsRoot);
    assert.deepEqual(
      staleFigures(page, figures),
      [],
      "run `pnpm --filter @condense/docs generate`",
    );
    const newer = new Map(figures);
    newer.set(
      "speed-figures",
      speedFigures(speedRecord([row.replace("154.0", "99.0")], "2026-12-01T09:00:00.000Z")) ?? "",
    );
    const stale = staleFigures(page, newer);
    assert.equal(stale.length, 1);
    assert.match(stale[0] ?? "", /^<!-- figure:speed-figures -->/);
    assert.ok(withFigures(page, newer, "page").includes("99.0 ms"));
  });
});
