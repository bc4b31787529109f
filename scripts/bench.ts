/**
 * @module scripts/bench
 * `pnpm bench [section…]`: with no section, the engine's bench and then the Worker's; with
 * sections (`cost`, `probes`, `gateway`, `search`, `speed`, … and their options, e.g. `pnpm bench cost
 * --label after`), only those of the Worker's bench (`apps/worker/bench/bench.ts`).
 */

import { spawnSync } from "node:child_process";

function run(args: string[]): void {
  const result = spawnSync("pnpm", args, { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const sections = process.argv.slice(2);
if (sections.length === 0) run(["--filter", "@condense/core", "bench"]);
run(["--filter", "@condense/worker", "bench", ...sections]);
