import { globSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { nodeRunnableTests } from "./test/support/node-runnable.ts";
import workerd from "./vitest.config.ts";

const root = dirname(fileURLToPath(import.meta.url));

/** The session's and the gateway's module tests that need workerd (the others run on Node). */
function workerdModuleTests(): string[] {
  const onNode = new Set(nodeRunnableTests(root, "src"));
  return globSync("src/{session,gateway}/**/*.test.ts", { cwd: root })
    .filter((file) => !onNode.has(file))
    .sort();
}

// `pnpm test:fast`'s second step, in workerd: the session's and the gateway's module tests that need
// it (SQLite, the Durable Object), and the Durable Object's and the gateway's own suites over the
// local scripted upstream (nothing beyond this machine). `vitest.config.ts` runs every test.
export default defineConfig({
  ...workerd,
  test: {
    ...workerd.test,
    include: [
      ...workerdModuleTests(),
      "test/session/sessions.test.ts",
      "test/gateway/gateway.test.ts",
    ],
  },
});
