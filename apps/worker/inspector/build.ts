/**
 * @module inspector/build
 * Builds the inspector's static files into `inspector/dist/inspect/` (served
 * by the Worker at `/inspect` through its `assets` binding), and with them the
 * API reference's into `inspector/dist/docs/` (`api-reference/build.ts`): the app bundled
 * by esbuild into one content-hashed script and one stylesheet, and the page
 * that loads them. Everything it loads comes from the Worker's own origin.
 * Run by `wrangler dev`/`wrangler deploy` (the custom build in wrangler.jsonc),
 * so `pnpm build` and `pnpm start` always serve a fresh copy.
 */

import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { buildApiReference } from "../api-reference/build.ts";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "dist");
const packages = join(here, "..", "..", "..", "packages");
// Built beside `dist` and swapped in when complete: `turbo` runs the worker's build, typecheck and
// tests at once, and each may run this script while another reads `dist` (a rebuild that emptied
// `dist` first made a concurrent reader miss its files).
const staging = join(here, `dist.${process.pid}.tmp`);
const outdir = join(staging, "inspect");

rmSync(staging, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });

const result = await build({
  entryPoints: { app: join(here, "src", "main.tsx"), style: join(here, "src", "styles.css") },
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  platform: "browser",
  jsx: "automatic",
  jsxImportSource: "preact",
  entryNames: "[name]-[hash]",
  outdir,
  metafile: true,
  legalComments: "eof",
  // The workspace packages from their source, so the page needs no build of them first (`pnpm start`
  // on a fresh clone runs this before anything built the client): the engine's few constants and
  // checks the page uses (core's published dist is also one bundled chunk with the token rank data,
  // which put 1.5 MB into the page), and the client the page calls the API with.
  alias: {
    "@condense/core": join(packages, "core", "src", "index.ts"),
    "@condense/client": join(packages, "client", "src", "index.ts"),
  },
  logLevel: "warning",
});

const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
const script = outputs.find((name) => name.startsWith("app-") && name.endsWith(".js"));
const style = outputs.find((name) => name.startsWith("style-") && name.endsWith(".css"));
if (script === undefined || style === undefined) {
  throw new Error(`esbuild produced ${outputs.join(", ")}: expected app-*.js and style-*.css`);
}
// A page that grew past this has pulled in something it should not (the token tables once did).
const SCRIPT_BUDGET_BYTES = 200 * 1024;
const scriptBytes = readFileSync(join(outdir, script)).length;
if (scriptBytes > SCRIPT_BUDGET_BYTES) {
  throw new Error(
    `the inspector's script is ${scriptBytes} bytes, over its ${SCRIPT_BUDGET_BYTES}-byte budget: look for a value import that pulls in a large module (esbuild --analyze)`,
  );
}
const page = readFileSync(join(here, "src", "index.html"), "utf8")
  .replace("{{script}}", `/inspect/${script}`)
  .replace("{{style}}", `/inspect/${style}`);
writeFileSync(join(outdir, "index.html"), page);

const sizes = [script, style, "index.html"].map((name) => {
  const bytes = readFileSync(join(outdir, name));
  return `${name} ${(bytes.length / 1024).toFixed(1)} KiB (${(gzipSync(bytes).length / 1024).toFixed(1)} KiB gzip)`;
});
console.log(`inspector built: ${sizes.join(", ")}`);

// The Worker's other static files: the live API reference at /docs (api-reference/build.ts).
const reference = buildApiReference(join(staging, "docs"));
console.log(`API reference built: ${reference.join(", ")}`);

// The hashed names are the same when the content is, so a reader holding the old page finds its files.
const previous = join(here, `dist.${process.pid}.old`);
rmSync(previous, { recursive: true, force: true });
try {
  renameSync(dist, previous);
} catch {
  // No earlier build.
}
renameSync(staging, dist);
rmSync(previous, { recursive: true, force: true });
