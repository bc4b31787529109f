import { defineConfig } from "vitest/config";

// Node tests: the upstream's rule checks (src/**), and the agent runs (test/), which start the real
// CLIs and `wrangler dev`. One run at a time: the machine has two cores, and the CLIs are heavy.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 240_000,
    fileParallelism: false,
  },
});
