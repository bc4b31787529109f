import { defineConfig } from "vitest/config";

// The inspector's tests run under Node: its pure modules (inspector/src/**/*.test.ts), the bench's
// (bench/**/*.test.ts), and the browser tests (test-e2e/), which start `wrangler dev` and drive a
// real Chromium against it.
export default defineConfig({
  test: {
    include: ["inspector/src/**/*.test.ts", "bench/**/*.test.ts", "test-e2e/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 240_000,
    // One wrangler dev and one browser at a time on a shared 2-core machine.
    fileParallelism: false,
  },
});
