/**
 * @module scripts/benchmarks
 * The benchmarks page's generated part: for each bench (core, worker, or both at once), the
 * newest output `record-bench` recorded in bench-results/, with its date, command and machine,
 * split into the sections the bench printed (`## …` lines); and a page per report of the cost and
 * probe benches (their long tables belong here, not in the design notes that quote them).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { code, frontMatter, generatedBanner, table } from "./markdown.ts";

export const BENCH_RESULTS_DIR = "bench-results";
/** The cost and probe benches' reports (`apps/worker/bench/cost.ts`, `probes.ts`), one per run. */
export const BENCH_REPORTS_DIR = `${BENCH_RESULTS_DIR}/reports`;
/** Where the site shows them: a page per report, every page there generated. */
export const BENCH_RUNS_DIR = "src/content/docs/benchmarks/runs";

export interface BenchRecord {
  date: string;
  durationSeconds: number;
  command: string;
  machine: {
    cpu: string;
    cores: number;
    memoryGiB: number;
    os: string;
    node: string;
    loadAverageBefore: number[];
    freeMemoryGiBBefore: number;
  };
  output: string;
}

export function newestByName(folder: string): Map<string, { file: string; record: BenchRecord }> {
  const newest = new Map<string, { file: string; record: BenchRecord }>();
  let files: string[] = [];
  try {
    files = readdirSync(folder).filter((file) => file.endsWith(".json"));
  } catch {
    return newest;
  }
  // Named `<date>-<name>.json`: sorted by name, the last of each name is the newest.
  for (const file of files.sort()) {
    const name = file.replace(/^\d{4}-\d{2}-\d{2}-/, "").replace(/\.json$/, "");
    const record = JSON.parse(readFileSync(join(folder, file), "utf8")) as BenchRecord;
    newest.set(name, { file, record });
  }
  return newest;
}

function sections(output: string): string {
  const parts: string[] = [];
  let heading = "Output";
  let lines: string[] = [];
  const flush = () => {
    // Leading blank lines go; the first line keeps its indent, which aligns its columns.
    const text = lines
      .join("\n")
      .replace(/^(\s*\n)+/, "")
      .trimEnd();
    if (text !== "") parts.push(`#### ${heading}\n\n\`\`\`\n${text}\n\`\`\`\n`);
    lines = [];
  };
  for (const line of output.split("\n")) {
    const section = /^\s*#{2,3} (.+)$/.exec(line);
    if (section !== null) {
      flush();
      heading = section[1] ?? heading;
    } else if (!/^\s*>\s/.test(line)) {
      // pnpm's `> package@version script` lines say which script ran, not a figure.
      lines.push(line);
    }
  }
  flush();
  return parts.join("\n");
}

export function benchmarksSection(docsRoot: string): string {
  const newest = newestByName(join(docsRoot, BENCH_RESULTS_DIR));
  if (newest.size === 0) {
    return "No run is recorded yet: `pnpm --filter @condense/docs bench:record`.\n";
  }
  const out: string[] = [];
  for (const [name, { file, record }] of [...newest].sort(([a], [b]) => a.localeCompare(b))) {
    const m = record.machine;
    out.push(
      `### ${name}: ${record.date.slice(0, 10)}`,
      "",
      table(
        ["", ""],
        [
          ["command", code(record.command)],
          ["date", record.date],
          ["took", `${record.durationSeconds} s`],
          ["machine", `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}`],
          ["Node", m.node],
          ["load average before", m.loadAverageBefore.join(" / ")],
          ["recorded in", code(`apps/docs/${BENCH_RESULTS_DIR}/${file}`)],
        ],
      ),
      sections(record.output),
    );
  }
  return out.join("\n");
}

/** A page per report of `bench-results/reports/`, titled by its first heading. */
export function benchReportPages(docsRoot: string): Map<string, string> {
  const pages = new Map<string, string>();
  const files = readdirSync(join(docsRoot, BENCH_REPORTS_DIR))
    .filter((file) => file.endsWith(".md"))
    .sort();
  for (const file of files) {
    const text = readFileSync(join(docsRoot, BENCH_REPORTS_DIR, file), "utf8");
    const heading = /^# (.+)\n/.exec(text);
    const body = heading === null ? text : text.slice(heading[0].length);
    pages.set(
      `${BENCH_RUNS_DIR}/${file}`,
      `${frontMatter({ title: heading?.[1] ?? file.replace(/\.md$/, "") })}${generatedBanner(`apps/docs/${BENCH_REPORTS_DIR}/${file}`)}${body.trimStart()}`,
    );
  }
  return pages;
}

/** The reports' pages as a list for the benchmarks page. */
export function benchReportsList(docsRoot: string): string {
  return [...benchReportPages(docsRoot).entries()]
    .map(([path, page]) => {
      const title = /^title: (.+)$/m.exec(page)?.[1] ?? path;
      const slug = path.slice("src/content/docs".length).replace(/\.md$/, "/");
      return `- [${JSON.parse(title) as string}](${slug})`;
    })
    .join("\n");
}
