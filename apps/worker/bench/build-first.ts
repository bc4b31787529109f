/**
 * @module bench/build-first
 * Run by `pnpm bench` before `bench/bench.ts`: builds what the bench imports and what `wrangler dev`
 * reads (the engine's and the client's dist/, the token tables' generated modules) in this checkout,
 * through turbo's cache, so that a fresh checkout (or one whose engine changed since its last build)
 * measures its own code. `bench/bench.ts` imports `@condense/core` by name: without its dist/ it
 * cannot start, so this runs as a step of its own, and says what to run when it fails.
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildPackages } from "./compare/trees.ts";

// Not `harness.root`: the harness imports the engine, which may not be built yet.
const repo = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const started = performance.now();
try {
  buildPackages(repo);
} catch (error) {
  console.error(
    `pnpm bench: building @condense/core and @condense/client in ${repo} failed, and the bench imports them.\n` +
      "Run `pnpm install --frozen-lockfile` and then `pnpm --filter @condense/core --filter @condense/client build` at the repository's root, fix what it reports, and run the bench again.\n",
  );
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
console.log(`engine and client built (${((performance.now() - started) / 1000).toFixed(0)} s)`);
