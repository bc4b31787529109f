import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// The client is tested against the real Worker: its wrangler.jsonc (Durable Object, SQLite
// storage, vars) runs in workerd next to the tests, which reach it through `SELF.fetch`. The model
// provider `withCompaction` talks to is a Node server from test/global-setup.ts; the `openai`
// client runs in workerd too and reaches it over loopback.
export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "../../apps/worker/wrangler.jsonc" },
      miniflare: {
        bindings: {
          API_KEYS: "alice:alice-key,bob:bob-key",
        },
      },
    }),
  ],
  test: {
    globalSetup: ["./test/global-setup.ts"],
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Node-only tests (the packaging test) run with vitest.pack.config.ts.
    exclude: ["**/*.node.test.ts", "**/node_modules/**"],
    testTimeout: 120_000,
    // The Worker logs one JSON line per request; hundreds per test would bury the results.
    onConsoleLog: (log) => !log.startsWith('{"time"'),
    hookTimeout: 60_000,
  },
});
