/**
 * @module scripts/benchmarks
 * The benchmarks page's generated part: for each bench (core, worker, or both at once), the
 * newest output `record-bench` recorded in bench-results/, with its date, command and machine,
 * split into the sections the bench printed (`## …` lines).
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { code, table } from "./markdown.ts";

export const BENCH_RESULTS_DIR = "bench-results";

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

function newestByName(folder: string): Map<string, { file: string; record: BenchRecord }> {
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
