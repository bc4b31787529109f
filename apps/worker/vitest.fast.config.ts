import { globSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { nodeRunnableTests } from "./test/support/node-runnable.ts";
import workerd from "./vitest.config.ts";

const root = dirname(fileURLToPath(import.meta.url));

/**
 * The session's and the gateway's suites left to `pnpm test` (and `pnpm test:session`,
 * `pnpm test:gateway`): each spends many seconds of its own (its time inside workerd, measured on
 * this machine under load 11–18, beside the 1–5 s of the others), so `test:fast` stays in its
 * budget. Everything else under test/session/ and test/gateway/ is in: none reaches beyond this
 * machine (the upstreams are the local scripted servers).
 */
const SLOW = new Set([
  "test/gateway/gateway-overhead.test.ts", // 55 s: three agents' full request overheads
  "test/gateway/fits-window-property.test.ts", // 15 s: a property over random sessions and windows
  "test/session/bill.test.ts", // 15 s
  "test/session/provider-data.test.ts", // 13 s
  "test/gateway/gateway-side-requests.test.ts", // 10 s
  "test/session/context-fits.test.ts", // 9 s
  "test/gateway/gateway-gemini.test.ts", // 9 s
  "test/gateway/gateway-opaque.test.ts", // 8 s
  "test/gateway/gateway-fits.test.ts", // 8 s
  "test/gateway/gateway-captures.test.ts", // 7 s: captured agent sessions replayed
]);

/** The session's and the gateway's tests that need workerd (the others run on Node). */
function workerdTests(): string[] {
  const onNode = new Set([...nodeRunnableTests(root, "src"), ...nodeRunnableTests(root, "test")]);
  return globSync("{src/session,src/gateway,test/session,test/gateway}/**/*.test.ts", { cwd: root })
    .filter((file) => !onNode.has(file) && !SLOW.has(file))
    .sort();
}

// `pnpm test:fast`'s second step, in workerd: the session's and the gateway's module tests that need
// it (SQLite, the Durable Object), and the Durable Object's and the gateway's own suites over the
// local scripted upstreams but for the slowest (SLOW). `vitest.config.ts` runs every test.
export default defineConfig({
  ...workerd,
  test: {
    ...workerd.test,
    include: workerdTests(),
  },
});
