import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

const root = dirname(fileURLToPath(import.meta.url));

// Tests run inside workerd with the real Durable Object and SQLite storage. The LLM they talk to is a
// local server started from Node by test/support/global-setup.ts; its URL reaches the Worker as a binding.
// The engine and the client are read from their sources, as in vitest.unit.config.ts, so a change
// there is tested here without rebuilding their dist/ first.
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
  plugins: [
    cloudflareTest(({ inject }) => ({
      wrangler: { configPath: "./wrangler.jsonc" },
      miniflare: {
        // wrangler.jsonc's per-user limit would refuse a suite that calls as alice all along; the rate
        // limit's own tests give the app a fake binding (test/api/rate-limit.test.ts).
        ratelimits: {
          RATE_LIMITER: { namespace_id: "2001", simple: { limit: 1_000_000, period: 60 } },
        },
        bindings: {
          API_KEYS: "alice:alice-key, bob:bob-key\ncarol:carol-key\ndocs:docs-key",
          JWT_SECRET: "test-jwt-secret",
          SUMMARIZER_BASE_URL: inject<string>("llmChatUrl"),
          SUMMARIZER_API_KEY: "sk-test-summarizer",
          OPENAI_API_KEY: "sk-test-openai",
          OPENAI_BASE_URL: `${inject<string>("llmControlUrl")}/v1`,
          TEST_LLM_URL: inject<string>("llmControlUrl"),
          // The gateway: `anthropic` and `up` (OpenAI protocols) are the test upstream; `dead` refuses
          // connections. Each has a deployment key, so requests without X-Condense-Key work too.
          ANTHROPIC_BASE_URL: inject<string>("gatewayUpstreamUrl"),
          ANTHROPIC_API_KEY: "sk-ant-deployment",
          GATEWAY_UPSTREAMS: `up=${inject<string>("gatewayUpstreamUrl")}/v1\ndead=http://127.0.0.1:9/v1`,
          GATEWAY_KEY_UP: "sk-up-deployment",
          TEST_GATEWAY_UPSTREAM_URL: inject<string>("gatewayUpstreamUrl"),
          COOLDOWN_SECONDS: "600",
          // Background compactions run only when a test fires the alarm once they are due
          // (runAlarmWhenDue moves the session's clock on to that time).
          COMPACTION_DELAY_MS: "3600000",
          // Session list reports coalesce over a short interval, so tests see the trailing report soon.
          SESSION_LIST_REPORT_MS: "50",
          // The route-level property test: more sequences, or a failed one's seed to replay.
          ROUTE_FUZZ_RUNS: process.env.ROUTE_FUZZ_RUNS ?? "",
          ROUTE_FUZZ_SEED: process.env.ROUTE_FUZZ_SEED ?? "",
        },
      },
    })),
  ],
  test: {
    globalSetup: ["./test/support/global-setup.ts"],
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    // The service's structured log lines are asserted on where they matter; elsewhere they are noise.
    onConsoleLog: (line) => !/^\{\s+time: /.test(line),
    hookTimeout: 60_000,
  },
});
