/**
 * @module scripts/folder-sizes.test
 * No folder of a package's sources holds more than 20 production files: past
 * that a folder is one big room, and a reader can no longer find a thing by its
 * folder (it gets rooms by job instead, as `apps/worker/src/session/` did).
 * Production files are the tracked `.ts`/`.tsx`/`.js` files under a `src`
 * folder, at any depth, of any workspace package; tests (type tests, `.test-d.ts`, too) and declaration files
 * are not. Run by `pnpm test:fast` and `pnpm test`.
 */

import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const MAX_FILES = 20;
const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Whether a tracked path is a production source file. */
function isProductionSource(path: string): boolean {
  return (
    /(^|\/)src\//.test(path) &&
    /\.(ts|tsx|js)$/.test(path) &&
    !/\.test(-d)?\.(ts|tsx|js)$/.test(path) &&
    !path.endsWith(".d.ts")
  );
}

/** Folder → its production files (direct children only), of the paths given. */
function folderSizes(paths: readonly string[]): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const path of paths.filter(isProductionSource)) {
    const folder = dirname(path);
    sizes.set(folder, (sizes.get(folder) ?? 0) + 1);
  }
  return sizes;
}

const tracked = execFileSync("git", ["ls-files", "apps", "packages", "tests"], {
  cwd: root,
  encoding: "utf8",
})
  .split("\n")
  .filter((line) => line !== "");

describe("the packages' folders", () => {
  it("counts production files by folder, leaving tests and declarations out", () => {
    const sizes = folderSizes([
      "apps/worker/src/session/a.ts",
      "apps/worker/src/session/a.test.ts",
      "apps/worker/src/session/store/b.ts",
      "apps/worker/src/env.d.ts",
      "apps/worker/test/helpers.ts",
      "packages/core/src/summary/c.node.test.ts",
      "packages/core/src/public-types.test-d.ts",
    ]);
    expect([...sizes]).toEqual([
      ["apps/worker/src/session", 1],
      ["apps/worker/src/session/store", 1],
    ]);
    expect(folderSizes(tracked).get("apps/worker/src/session")).toBeGreaterThan(0);
  });

  it(`hold at most ${MAX_FILES} production files each`, () => {
    const crowded = [...folderSizes(tracked)]
      .filter(([, count]) => count > MAX_FILES)
      .map(([folder, count]) => `${folder}: ${count} files; split it into rooms by job`);
    expect(crowded).toEqual([]);
  });
});
