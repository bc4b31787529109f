/**
 * @module inspector/build
 * Builds the inspector's static files into `inspector/dist/inspect/` (served
 * by the Worker at `/inspect` through its `assets` binding): the app bundled
 * by esbuild into one content-hashed script and one stylesheet, and the page
 * that loads them. Everything it loads comes from the Worker's own origin.
 * Run by `wrangler dev`/`wrangler deploy` (the custom build in wrangler.jsonc),
 * so `pnpm build` and `pnpm start` always serve a fresh copy.
 */

import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const outdir = join(here, "dist", "inspect");

rmSync(join(here, "dist"), { recursive: true, force: true });
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
  logLevel: "warning",
});

const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
const script = outputs.find((name) => name.startsWith("app-") && name.endsWith(".js"));
const style = outputs.find((name) => name.startsWith("style-") && name.endsWith(".css"));
if (script === undefined || style === undefined) {
  throw new Error(`esbuild produced ${outputs.join(", ")}: expected app-*.js and style-*.css`);
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
