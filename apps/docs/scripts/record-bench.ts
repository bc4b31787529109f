/**
 * @module scripts/record-bench
 * `pnpm --filter @condense/docs bench:record [-- <command>]`: runs the benchmarks (`pnpm bench`
 * at the repository's root unless a command is given), shows their output as it comes, and
 * writes it with the date and the machine it ran on to `bench-results/<date>-<name>.json`
 * (`core`, `worker`, `demo` for `pnpm demo`, the sections of `pnpm bench <sections>`, e.g.
 * `probes`, else `all`). The
 * benchmarks page is generated from the newest file of each name (`generate`). The benches print
 * figures for people; recording their whole output, rather than teaching each bench a format,
 * keeps every figure they print and needs no change to them.
 */

import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, freemem, loadavg, platform, release, totalmem } from "node:os";
import { join } from "node:path";
import { BENCH_RESULTS_DIR, type BenchRecord } from "./benchmarks.ts";
import { repoRoot } from "./worker-source.ts";

const separator = process.argv.indexOf("--");
const command = separator < 0 ? ["pnpm", "bench"] : process.argv.slice(separator + 1);
/** `pnpm bench probes --label after` is recorded as `probes`: its sections, before any option. */
function sectionsOf(args: readonly string[]): string | undefined {
  const bench = args.indexOf("bench");
  if (args[0] !== "pnpm" || bench !== 1) return undefined;
  const sections = [];
  for (const arg of args.slice(bench + 1)) {
    if (arg.startsWith("-")) break;
    sections.push(arg);
  }
  return sections.length === 0 ? undefined : sections.join("-");
}
const name = command.includes("@condense/core")
  ? "core"
  : command.includes("@condense/worker")
    ? "worker"
    : command[0] === "pnpm" && command[1] === "demo"
      ? "demo"
      : (sectionsOf(command) ?? "all");

const machine = {
  cpu: cpus()[0]?.model ?? "unknown",
  cores: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  os: `${platform()} ${release()}`,
  node: process.version,
  loadAverageBefore: loadavg().map((value) => Math.round(value * 100) / 100),
  freeMemoryGiBBefore: Math.round((freemem() / 2 ** 30) * 10) / 10,
};
const started = new Date();
const [program, ...args] = command;
if (program === undefined) throw new Error("no command to run");
const child = spawn(program, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "inherit"] });
let output = "";
child.stdout.on("data", (chunk: Buffer) => {
  output += chunk.toString("utf8");
  process.stdout.write(chunk);
});
const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
if (code !== 0) {
  console.error(`${command.join(" ")} exited with ${code}: nothing recorded`);
  process.exit(1);
}
const record: BenchRecord = {
  date: started.toISOString(),
  durationSeconds: Math.round((Date.now() - started.getTime()) / 1000),
  command: command.join(" "),
  machine,
  // Escape sequences colour a terminal, and the checkout's path names this machine's folders;
  // the page wants the text, with paths from the repository's root.
  output: output
    .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "")
    .replaceAll(`${repoRoot}/`, ""),
};
const folder = join(repoRoot, "apps", "docs", BENCH_RESULTS_DIR);
mkdirSync(folder, { recursive: true });
const file = join(folder, `${started.toISOString().slice(0, 10)}-${name}.json`);
writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
console.log(`recorded ${file}; run pnpm --filter @condense/docs generate to update the page`);
