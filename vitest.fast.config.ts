import { defineConfig } from "vitest/config";

// `pnpm test:fast`: the unit tiers in one Node process, no browser, no workerd, no network — the
// engine's module tests, the Worker's tests that need no workerd, the inspector's module tests.
// `pnpm test` (turbo) stays the whole suite.
export default defineConfig({
  test: {
    projects: [
      "packages/core/vitest.unit.config.ts",
      "apps/worker/vitest.unit.config.ts",
      "apps/worker/inspector/vitest.config.ts",
      // The client's public type tests (`withCompaction`, `condenseMiddleware`, `Condense`'s
      // options), checked by tsc as tests; its other tests need workerd and the Worker.
      {
        test: {
          name: "client-types",
          root: "packages/client",
          include: [],
          typecheck: {
            enabled: true,
            only: true,
            include: ["src/**/*.test-d.ts"],
            tsconfig: "./tsconfig.type-tests.json",
          },
        },
      },
      // The repository's own layout checks (scripts/*.test.ts): no folder of sources over 20 files.
      { test: { name: "repo", include: ["scripts/**/*.test.ts"] } },
    ],
  },
});
