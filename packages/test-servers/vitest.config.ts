import { defineConfig } from "vitest/config";

// Node tests: the servers answer the official SDKs, and the rules refuse what the providers refuse.
export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    testTimeout: 60_000,
  },
});
