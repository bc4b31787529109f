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

import { readdirSync, readFileSync, rmSync } from "node:fs";
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

// The chunk with the rank data (1.5 MB) must stay ASCII: Node reads a module with any other
// character into a two-byte string, twice the memory (~600 more page faults at import, measured).
// esbuild escapes strings but not regular expressions or comments, so one `’` in a regex did it.
const chunks = join(outdir, "chunks");
for (const name of readdirSync(chunks).filter((file) => file.endsWith(".js"))) {
  const text = readFileSync(join(chunks, name), "utf8");
  if (!text.includes("// src/tokens/rank-data/")) continue;
  const at = text.search(/[\u0080-\uffff]/);
  if (at === -1) continue;
  const line = text.slice(0, at).split("\n").length;
  // esbuild heads each module's code with a `// src/...` line.
  const heading = text.lastIndexOf("// src/", at);
  const source =
    heading === -1 ? "its source" : text.slice(heading + 3, text.indexOf("\n", heading));
  throw new Error(
    `dist/chunks/${name}:${line} has the non-ASCII character ${JSON.stringify(text[at])} (from ${source}): ` +
      "write it as a \\u escape there, so the rank-data chunk stays ASCII",
  );
}
