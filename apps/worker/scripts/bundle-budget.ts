/**
 * @module scripts/bundle-budget
 * The Worker bundle's size budget, checked by the Worker's `build` (`wrangler deploy --dry-run
 * --outdir dist`, then this script on `dist`): the gzipped size of what `wrangler deploy` would
 * upload, the figure Cloudflare's size limit and a cold isolate's parse time follow. Size is
 * deterministic, so unlike a timing it can fail a build without a noise margin; `pnpm bench
 * compare --figures bundle` measures the same way and says what a change adds.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/** Issue 29's goal: 1.2 MiB gzipped. */
export const BUNDLE_BUDGET_KIB = 1.2 * 1024;

/** The files of a `wrangler deploy --outdir` that are uploaded as the Worker's modules. */
const MODULE_FILE = /\.(?:m?js|wasm|bin)$/;

/** The gzipped size, in KiB, of the Worker's modules in `outdir`. */
export function gzippedKiB(outdir: string): number {
  return readdirSync(outdir)
    .filter((file) => MODULE_FILE.test(file))
    .reduce((sum, file) => sum + gzipSync(readFileSync(join(outdir, file))).length / 1024, 0);
}

/** What the build prints, and whether the bundle is within the budget. */
export function budgetVerdict(
  kib: number,
  budgetKiB: number = BUNDLE_BUDGET_KIB,
): { ok: boolean; message: string } {
  const figures = `${kib.toFixed(1)} KiB gzipped, budget ${budgetKiB.toFixed(1)} KiB`;
  if (kib <= budgetKiB) return { ok: true, message: `Worker bundle: ${figures}` };
  return {
    ok: false,
    message:
      `Worker bundle over its budget: ${figures} (${(kib - budgetKiB).toFixed(1)} KiB over). ` +
      "Find what grew with `pnpm bench compare --figures bundle` and esbuild's metafile " +
      "(`wrangler deploy --dry-run --outdir dist --metafile`); load rarely used code or data lazily " +
      "rather than raising the budget.",
  };
}

if (import.meta.main === true) {
  const outdir = process.argv[2] ?? "dist";
  const verdict = budgetVerdict(gzippedKiB(outdir));
  (verdict.ok ? console.log : console.error)(verdict.message);
  if (!verdict.ok) process.exitCode = 1;
}
