import { globSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { nodeRunnableTests } from "./test/support/node-runnable.ts";
import workerd from "./vitest.config.ts";

const root = dirname(fileURLToPath(import.meta.url));

/** The folders `pnpm test:session` and `pnpm test:gateway` run: the session's and the gateway's tests. */
const FOLDERS = ["src/session", "src/cache", "test/session", "src/gateway", "test/gateway"];

/**
 * Every test of those folders that needs workerd (the others run on Node in `pnpm test:fast`'s first
 * step). None reaches beyond this machine: the upstreams and summarizers they talk to are the local
 * servers test/support/global-setup.ts starts in Node, and the other URLs they name are answered
 * inside workerd (`SELF`) or never fetched.
 */
function workerdTests(): string[] {
  const onNode = new Set([...nodeRunnableTests(root, "src"), ...nodeRunnableTests(root, "test")]);
  return FOLDERS.flatMap((folder) => globSync(`${folder}/**/*.test.ts`, { cwd: root }))
    .filter((file) => !onNode.has(file))
    .sort();
}

// `pnpm test:fast`'s second step, in workerd: the session's and the gateway's tests, module tests
// (SQLite, the Durable Object) and suites alike. `vitest.config.ts` runs every test, each file in
// its own workerd (`pnpm test`).
export default defineConfig({
  ...workerd,
  test: {
    ...workerd.test,
    include: workerdTests(),
    // One workerd for all the files, keeping the modules it loaded from one file to the next: with a
    // workerd per file each paid ~6 s of module transform and import before its first test (35 files
    // took 231 s on this machine, their tests 25 s). These files stub no globals and mock no modules
    // (the two console spies are restored in `finally`), and they share storage safely as the tests of
    // one file always did: each test makes its own users and sessions (`freshUser`, random ids).
    isolate: false,
  },
});
