import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = dirname(fileURLToPath(import.meta.url));

// The inspector's module tests on Node, for `pnpm test:fast` (vitest.inspector.config.ts runs them
// with the browser tests). The client is read from its source, so a change there is tested without
// rebuilding its dist/ first.
export default defineConfig({
  resolve: {
    alias: [
      {
        find: /^@condense\/client$/,
        replacement: join(root, "../../../packages/client/src/index.ts"),
      },
      { find: /^@condense\/core$/, replacement: join(root, "../../../packages/core/src/index.ts") },
    ],
  },
  test: {
    name: "inspector",
    root,
    include: ["src/**/*.test.ts"],
    // These tests mock nothing and change no globals: a worker keeps the modules it loaded (the
    // token rank tables, the engine) from one test file to the next instead of loading them again.
    isolate: false,
  },
});
