/** Types `env` from `cloudflare:test`: the Worker's own bindings (`Cloudflare.Env`) plus the test-only ones. */
declare namespace Cloudflare {
  interface Env {
    /** Control server of the test LLM (see test/support/llm-server.ts). */
    TEST_LLM_URL: string;
    /** The gateway's test upstream (see test/support/gateway-upstream.ts). */
    TEST_GATEWAY_UPSTREAM_URL: string;
    /** The deployment's key for the gateway's test upstream `up`. */
    GATEWAY_KEY_UP: string;
    /** Sequences the route-level property test runs (test/api/route-fuzz.test.ts); empty: its default. */
    ROUTE_FUZZ_RUNS: string;
    /** The fast-check seed to replay, from a failed run's report; empty: a random one. */
    ROUTE_FUZZ_SEED: string;
  }
}
