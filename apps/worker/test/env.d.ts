/** Types `env` from `cloudflare:test`: the Worker's own bindings (`Cloudflare.Env`) plus the test-only ones. */
declare namespace Cloudflare {
  interface Env {
    /** Control server of the test LLM (see test/llm-server.ts). */
    TEST_LLM_URL: string;
  }
}
