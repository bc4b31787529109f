/**
 * @module scripts/figures
 * The measured figures the written pages quote, each taken from the newest recorded bench run
 * (`bench-results/`, the source the benchmarks page is generated from; the demo's from `pnpm
 * --filter @condense/docs bench:record -- pnpm demo`; issue 29's speed table from `-- pnpm bench
 * speed`), so a figure has one value on every page. A page quotes one as `<!-- figure:<name> -->1,734 of 1,734<!-- /figure -->`
 * and `generate` rewrites the text between the markers (`--check` fails on a stale copy); the
 * comments are invisible on the site and on GitHub. `figures.test.ts` fails on a figure of the
 * kinds below written on a page without its markers.
 */

import { join } from "node:path";
import { BENCH_RESULTS_DIR, type BenchRecord, newestByName } from "./benchmarks.ts";

/** One figure: the bench run it is read from and how. */
interface FigureSource {
  bench: "core" | "worker" | "demo" | "speed";
  read(record: BenchRecord): string | undefined;
}

const count = (value: string) => Number(value).toLocaleString("en-US");
/** `N of M`, with thousands separators, from the first match of `pattern`'s two numbers. */
const ofCount =
  (pattern: RegExp) =>
  (record: BenchRecord): string | undefined => {
    const found = pattern.exec(record.output);
    return found?.[1] === undefined || found[2] === undefined
      ? undefined
      : `${count(found[1])} of ${count(found[2])}`;
  };

const SOURCES: Record<string, FigureSource> = {
  /** The deterministic summary bench: identifiers kept in one forced compaction per window. */
  "identifiers-kept": {
    bench: "core",
    read: ofCount(/^bare ids:.*identifiers kept: (\d+) of (\d+)/m),
  },
  /** How many transcripts that bench compacted, and from where (the corpus or the fixtures). */
  "summary-transcripts": {
    bench: "core",
    read: (record) => /^## Deterministic summary, (\d+ transcripts)/m.exec(record.output)?.[1],
  },
  "modified-files-described": {
    bench: "core",
    read: ofCount(/^bare ids:.*modified files described: (\d+) of (\d+)/m),
  },
  "tool-call-ids-named": {
    bench: "core",
    read: ofCount(/^bare ids:.*tool-call ids on a line naming tool and target: (\d+) of (\d+)/m),
  },
  /** The replayed sessions: identifiers kept at every tenth turn over many compactions. */
  "replayed-identifiers-kept": {
    bench: "core",
    read: ofCount(/^replayed: identifiers kept (\d+) of (\d+)/m),
  },
  /** The date of the core bench run the figures above come from. */
  "core-bench-date": { bench: "core", read: (record) => record.date.slice(0, 10) },
  /** `pnpm demo`'s summary (the django transcript at 32k, gpt-4o): the bill, `$1.97 vs $6.17`. */
  "demo-bill": {
    bench: "demo",
    read: (record) => {
      const found = DEMO_BILL.exec(record.output);
      return found === null ? undefined : `${found[1]} vs ${found[2]}`;
    },
  },
  "demo-bill-ratio": { bench: "demo", read: (record) => DEMO_BILL.exec(record.output)?.[3] },
  /** The turns the bill counts. */
  "demo-bill-turns": { bench: "demo", read: (record) => DEMO_BILL.exec(record.output)?.[4] },
  /** The bill's whole line, as inline code. */
  "demo-bill-line": {
    bench: "demo",
    read: (record) => {
      const line = /^\s*(bill \(input, prompt caching\)) +(.+)$/m.exec(record.output);
      return line === null ? undefined : `\`${line[1]} ${line[2]}\``;
    },
  },
  "demo-tokens-saved": {
    bench: "demo",
    read: (record) => /^\s*tokens saved .*\((\d+\.\d%)\)$/m.exec(record.output)?.[1],
  },
  "demo-peak-context": {
    bench: "demo",
    read: (record) => /^\s*peak context sent +([\d,]+) tokens/m.exec(record.output)?.[1],
  },
  "demo-raw-tokens": {
    bench: "demo",
    read: (record) => /^\s*raw transcript +([\d,]+) tokens/m.exec(record.output)?.[1],
  },
  /** The transcript's identifiers still in the final context, `N of M`. */
  "demo-identifiers-in-context": {
    bench: "demo",
    read: (record) => {
      const found =
        /^\s*ledger completeness .* of ([\d,]+) identifiers: ([\d,]+) in the context/m.exec(
          record.output,
        );
      return found === null ? undefined : `${found[2]} of ${found[1]}`;
    },
  },
  /** The summary's figures as a text block on lines of its own (a fence starts a line). */
  "demo-summary": {
    bench: "demo",
    read: (record) => {
      const rows = /^\s*(compactions [\s\S]*?ledger completeness[^\n]*)$/m.exec(record.output)?.[1];
      return rows === undefined
        ? undefined
        : `\n\`\`\`text\nSummary\n  ${rows
            .split("\n")
            .filter((row) => !/^\s*(final context|overflows) /.test(row))
            .join("\n")}\n\`\`\`\n`;
    },
  },
  "demo-date": { bench: "demo", read: (record) => record.date.slice(0, 10) },
  /** `pnpm bench speed`'s summary, issue 29's figures with their peers, as a table on lines of its own. */
  "speed-figures": { bench: "speed", read: (record) => speedFigures(record) },
  "speed-date": { bench: "speed", read: (record) => record.date.slice(0, 10) },
};

/** The header of `pnpm bench speed`'s summary table (`apps/worker/bench/speed.ts`). */
export const SPEED_HEADER = "| figure | value | peer in the same run | goal (issue 29) | met |";

/**
 * The `## Speed figures` block of a `pnpm bench speed` run with the run's date, command and
 * machine; undefined when the output has no such block or its table is not the expected one.
 */
export function speedFigures(record: BenchRecord): string | undefined {
  const block = /^## Speed figures\n\n((?:\|.*\n)+)\n(load average[^\n]*)/m.exec(record.output);
  const rows = block?.[1]?.trimEnd().split("\n") ?? [];
  const fiveCells = (row: string) => row.split(" | ").length === 5 && row.endsWith(" |");
  if (block === null || rows[0] !== SPEED_HEADER || rows.length < 3 || !rows.every(fiveCells))
    return undefined;
  const m = record.machine;
  return [
    "",
    "",
    `Recorded ${record.date.slice(0, 10)} by \`${record.command}\` (${record.durationSeconds} s, \`apps/docs/${BENCH_RESULTS_DIR}/${record.date.slice(0, 10)}-speed.json\`) on ${m.cpu}, ${m.cores} cores, Node ${m.node.replace(/^v/, "")}, load average ${m.loadAverageBefore.join(" / ")} (1, 5 and 15 minutes) when the recording began; the run's ${block[2]}.`,
    "",
    ...rows,
    "",
    "",
  ].join("\n");
}

/** The demo's bill line: its dollars, the whole history's, the ratio and the turns. */
const DEMO_BILL =
  /^\s*bill \(input, prompt caching\) +(\$[\d.]+) vs (\$[\d.]+) for the whole history \(([\d.]+×), [^,]+, (\d+) turns/m;

export type Figures = ReadonlyMap<string, string>;

/** Every figure's current value; throws naming a figure its bench run no longer prints. */
export function loadFigures(docsRoot: string): Figures {
  const newest = newestByName(join(docsRoot, BENCH_RESULTS_DIR));
  const figures = new Map<string, string>();
  for (const [name, source] of Object.entries(SOURCES)) {
    const run = newest.get(source.bench);
    const value = run === undefined ? undefined : source.read(run.record);
    if (value === undefined) {
      throw new Error(
        `figure "${name}": the newest ${source.bench} run in ${BENCH_RESULTS_DIR}/ does not print it (scripts/figures.ts reads it)`,
      );
    }
    figures.set(name, value);
  }
  return figures;
}

/** A quoted figure: its markers and the text between them. */
export const FIGURE_MARKER = /<!-- figure:([\w-]+) -->([\s\S]*?)<!-- \/figure -->/g;

/** A page with every quoted figure holding its current value. */
export function withFigures(page: string, figures: Figures, where: string): string {
  return page.replace(FIGURE_MARKER, (_marker, name: string) => {
    const value = figures.get(name);
    if (value === undefined) {
      throw new Error(`${where}: no figure "${name}" (figures: ${[...figures.keys()].join(", ")})`);
    }
    return `<!-- figure:${name} -->${value}<!-- /figure -->`;
  });
}

/** The quoted figures of `page` that do not hold their current value: `generate --check` fails on them. */
export function staleFigures(page: string, figures: Figures): string[] {
  return [...page.matchAll(FIGURE_MARKER)]
    .filter(([, name, value]) => figures.get(name ?? "") !== value)
    .map(([marker]) => marker);
}

/**
 * Figures of the kinds above written without markers: an "N of N" count of identifiers (the
 * kind that came to disagree between pages) and the demo's bill. The page's quoted figures are taken out first.
 */
export function unquotedFigures(page: string): string[] {
  const text = page.replace(FIGURE_MARKER, "");
  const counts =
    /(\d[\d,]*) of (\d[\d,]*)\b[^.\n]{0,60}?\bidentifiers?\b|\bidentifiers?\b[^.\n]{0,40}?\b(\d[\d,]*) of (\d[\d,]*)\b/gi;
  // And the demo's bill, `$1.97 vs $6.17`: the figure the demo's pages came to quote by hand.
  const bills = /\$\d[\d.]* vs \$\d[\d.]*/g;
  return [...text.matchAll(counts), ...text.matchAll(bills)].map((found) => found[0]);
}
