import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// The engine's module tests on Node for `pnpm test:fast`: every test but the `.node.test.ts` ones,
// which read the real transcripts from disk or talk to a local HTTP server (the same split as
// vitest.workers.config.ts). vitest.config.ts runs them all.
export default defineConfig({
  test: {
    name: "core",
    root: fileURLToPath(new URL(".", import.meta.url)),
    include: ["src/**/*.test.ts"],
    exclude: ["**/*.node.test.ts"],
    testTimeout: 60_000,
    // These tests mock nothing and change no globals: a worker keeps the modules it loaded (the
    // token rank tables, the engine) from one test file to the next instead of loading them again.
    isolate: false,
    hookTimeout: 60_000,
    // The public surface's type tests (`*.test-d.ts`: `compact()`'s overloads, its options), checked
    // by tsc as tests, so a wrong type fails `pnpm test:fast` too (`pnpm test` checks them with the
    // package's `tsc` type check).
    typecheck: {
      enabled: true,
      include: ["src/**/*.test-d.ts"],
      tsconfig: "./tsconfig.type-tests.json",
    },
  },
});
