import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { nodeRunnableTests } from "./test/support/node-runnable.ts";
import workerd from "./vitest.config.ts";

const root = dirname(fileURLToPath(import.meta.url));

/**
 * The Durable Object's and the gateway's suites `test:fast` runs in workerd (the rest of
 * test/session/ and test/gateway/ runs in `pnpm test`, `pnpm test:session`, `pnpm test:gateway`).
 * Why a list and not the folders: each file costs workerd about 6 s of module transform and import
 * before its first test (measured on this 2-core machine, quiet: 35 files took 231 s, their tests
 * 25 s), so the whole folders cannot fit the 120 s budget; these cover the session's storage
 * (schema, message store, clock), a session's life (append, context, compaction, transcript), a
 * gateway turn in each protocol with its transaction, and an agent's own compaction. None reaches
 * beyond this machine.
 */
const MODULES = [
  "src/session/store/schema.test.ts",
  "src/session/store/message-store.test.ts",
  "src/session/session-clock.test.ts",
];
const SUITES = [
  "test/session/sessions.test.ts",
  "test/gateway/gateway.test.ts",
  "test/gateway/gateway-protocols.test.ts",
  "test/gateway/gateway-turn-transaction.test.ts",
  "test/gateway/gateway-agent-compaction.test.ts",
];

/** The session's and the gateway's tests that need workerd (the others run on Node). */
function workerdTests(): string[] {
  const onNode = new Set([...nodeRunnableTests(root, "src"), ...nodeRunnableTests(root, "test")]);
  return [...MODULES, ...SUITES].filter((file) => !onNode.has(file));
}

// `pnpm test:fast`'s second step, in workerd: the session's and the gateway's module tests that need
// it (SQLite, the Durable Object), and the Durable Object's and the gateway's own suites over the
// local scripted upstreams listed in SUITES. `vitest.config.ts` runs every test.
export default defineConfig({
  ...workerd,
  test: {
    ...workerd.test,
    include: workerdTests(),
  },
});
