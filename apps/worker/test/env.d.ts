/** Types `env` from `cloudflare:test` as the Worker's own bindings plus the test-only ones. */
import type { Env as WorkerEnv } from "../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {
      /** Control server of the test LLM (see test/llm-server.ts). */
      TEST_LLM_URL: string;
    }
  }
}
