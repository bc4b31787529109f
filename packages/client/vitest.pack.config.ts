import { defineConfig } from "vitest/config";

// The packaging test (test/pack.node.test.ts) runs in Node: it packs @condense/core and
// @condense/client, lints the tarballs, installs them into a fresh project outside the workspace
// and runs a script there against the Worker under `wrangler dev`.
export default defineConfig({
  test: {
    include: ["test/**/*.node.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 300_000,
  },
});
