import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { nodeRunnableTests } from "./test/support/node-runnable.ts";

const root = dirname(fileURLToPath(import.meta.url));

// The Worker's module tests that need no workerd (test/node-runnable.ts tells which), run on Node
// for `pnpm test:fast`. The engine and the client are read from their sources, so a change there
// is tested without rebuilding their dist/ first; vitest.config.ts runs every test, in workerd,
// against the built packages.
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
    // them in vitest.inspector.config.ts.
    include: [...nodeRunnableTests(root, "src"), ...nodeRunnableTests(root, "bench")],
    // These tests mock nothing and change no globals: a worker keeps the modules it loaded (the
    // token rank tables, the engine) from one test file to the next instead of loading them again.
    isolate: false,
  },
});
