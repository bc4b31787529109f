/**
 * @module api-reference/build
 * Builds the live API reference's static files into `<outdir>` (served by the Worker at `/docs`
 * through its `assets` binding): Swagger UI's standalone bundle and stylesheet from
 * `swagger-ui-dist`, the script that starts it on `/openapi.json`, and the page that loads them,
 * each file named with its content hash. Everything the page loads comes from the Worker's own
 * origin: no CDN, so it works with no network. Called by `inspector/build.ts`, which writes the
 * Worker's assets folder.
 */

import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const swaggerUi = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

export const API_REFERENCE_PATH = "/docs";

function hashed(name: string, extension: string, content: Buffer): string {
  return `${name}-${createHash("sha256").update(content).digest("hex").slice(0, 12)}.${extension}`;
}

/** Writes the page and its files into `outdir`; returns the names of the files the page loads. */
export function buildApiReference(outdir: string): string[] {
  mkdirSync(outdir, { recursive: true });
  const files = {
    bundle: { name: "swagger-ui", extension: "js", path: join(swaggerUi, "swagger-ui-bundle.js") },
    style: { name: "swagger-ui", extension: "css", path: join(swaggerUi, "swagger-ui.css") },
    start: { name: "start", extension: "js", path: join(here, "src", "start.js") },
  };
  let page = readFileSync(join(here, "src", "index.html"), "utf8");
  const names: string[] = [];
  for (const [marker, file] of Object.entries(files)) {
    // A last line naming a source map is dropped: the maps are not served.
    const content = Buffer.from(
      readFileSync(file.path, "utf8").replace(
        /(\/\/# sourceMappingURL=\S+|\/\*# sourceMappingURL=\S+ ?\*\/)\s*$/,
        "",
      ),
    );
    const name = hashed(file.name, file.extension, content);
    writeFileSync(join(outdir, name), content);
    page = page.replace(`{{${marker}}}`, `${API_REFERENCE_PATH}/${name}`);
    names.push(name);
  }
  writeFileSync(join(outdir, "index.html"), page);
  return names;
}
