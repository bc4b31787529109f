import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { nodeRunnableTests } from "./test/support/node-runnable.ts";

const root = dirname(fileURLToPath(import.meta.url));

// The Worker's tests that need no workerd (test/support/node-runnable.ts tells which: module tests in
// src/, test/scripts/, the bench's), run on Node for `pnpm test:fast`. The engine and the client are
// read from their sources, so a change there is tested without rebuilding their dist/ first, here as
// in vitest.config.ts, which runs every test in workerd.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@condense\/core$/, replacement: join(root, "../../packages/core/src/index.ts") },
      {
        find: /^@condense\/core\/openai$/,
        replacement: join(root, "../../packages/core/src/openai.ts"),
      },
      {
        find: /^@condense\/client$/,
        replacement: join(root, "../../packages/client/src/index.ts"),
      },
    ],
  },
  test: {
    name: "worker",
    root,
    // The bench's own tests too (its cost model, probes, the comparison's retry): `pnpm test` runs
    // them in vitest.inspector.config.ts. test/scripts/ runs in workerd too, under `pnpm test`.
    include: [
      ...nodeRunnableTests(root, "src"),
      ...nodeRunnableTests(root, "test"),
      ...nodeRunnableTests(root, "bench"),
    ],
    // These tests mock nothing and change no globals: a worker keeps the modules it loaded (the
    // token rank tables, the engine) from one test file to the next instead of loading them again.
    isolate: false,
  },
});
