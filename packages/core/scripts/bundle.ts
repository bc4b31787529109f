/**
 * @module scripts/bundle
 * Writes `dist/index.js` and `dist/openai.js`: each entry point bundled into one ES module
 * (esbuild), with the code both share in one chunk, so that `import("@condense/core")` loads
 * two files instead of ~45 modules (Node spends ~1/3 ms per module; cold start is issue 9).
 * The shared chunk keeps one copy of the token tables and of the error classes for both
 * entry points. `tsc -p tsconfig.build.json` writes the declarations beside them.
 *
 *   node scripts/bundle.ts
 */

import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = join(root, "dist");

// A clean folder: files of modules that no longer exist must not linger in the package.
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: [join(root, "src/index.ts"), join(root, "src/openai.ts")],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  target: "es2023",
  // Peer and optional dependencies (the openai SDK) stay imports.
  packages: "external",
  chunkNames: "chunks/[name]-[hash]",
  // Not minified: stack traces and the published code stay readable.
  sourcemap: true,
  sourcesContent: false,
  logLevel: "warning",
});
