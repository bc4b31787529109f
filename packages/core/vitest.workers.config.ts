import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// The same unit tests, run inside workerd: the engine must not depend on Node.
// Tests that need the file system or a local HTTP server end in `.node.test.ts`.
export default defineConfig({
  plugins: [
    cloudflareTest({
      miniflare: {
        compatibilityDate: "2026-11-01",
        compatibilityFlags: [],
      },
    }),
  ],
  test: {
    include: ["src/**/*.test.ts"],
    exclude: ["**/*.node.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
