/**
 * @module scripts/generate
 * `pnpm --filter @condense/docs generate` writes every generated page of the site from its
 * source: the HTTP API (a page per operation of the Worker's OpenAPI document), the error codes,
 * the configuration, the engine's options, the benchmarks and the design notes; and the code
 * blocks of every page that shows a type-checked snippet (`snippets.ts`), and the measured
 * figures the pages quote (`figures.ts`). A page made of prose and a generated table has its prose in `templates/`, where `{{name}}` marks the table.
 * `--check` (the package's `test`) regenerates in memory and fails, naming each page, when a
 * committed page differs or a generated folder holds a page no source makes any more.
 */

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AGENTS_DIR, agentPages, withRecipes } from "./agent-pages.ts";
import {
  BENCH_RUNS_DIR,
  benchmarksSection,
  benchReportPages,
  benchReportsList,
} from "./benchmarks.ts";
import { clientReferenceParts } from "./client-reference.ts";
import { configurationTable } from "./configuration.ts";
import { engineInterfaceTable } from "./engine-options.ts";
import { errorCodesTable } from "./error-codes.ts";
import { loadFigures, withFigures } from "./figures.ts";
import { HTTP_API_DIR, httpApiIndex, httpApiPages } from "./http-api-pages.ts";
import { loadHttpExamples } from "./http-examples.ts";
import { generatedBanner } from "./markdown.ts";
import { NOTES_DIR, notesPages } from "./notes-pages.ts";
import { markdownFiles, withSnippets } from "./snippets.ts";
import { troubleshootingParts } from "./troubleshooting.ts";
import { loadWorkerSources } from "./worker-source.ts";

const docsRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const check = process.argv.includes("--check");
const snippetsDir = join(docsRoot, "snippets");

/** A template with its `{{name}}` markers replaced, and the banner after its front matter. */
function fromTemplate(template: string, source: string, parts: Record<string, string>): string {
  const text = withSnippets(
    readFileSync(join(docsRoot, "templates", template), "utf8"),
    snippetsDir,
  );
  const end = text.indexOf("\n---\n", 4);
  if (!text.startsWith("---\n") || end < 0)
    throw new Error(`templates/${template} has no front matter`);
  const head = text.slice(0, end + 5);
  const body = text.slice(end + 5).replace(/\{\{([\w-]+)\}\}/g, (marker, name: string) => {
    const part = parts[name];
    if (part === undefined) throw new Error(`templates/${template}: no generated part ${marker}`);
    return part.trimEnd();
  });
  return `${head}\n${generatedBanner(`templates/${template} and ${source}`)}${body.trimStart()}`;
}

const worker = await loadWorkerSources();
const pages = new Map<string, string>([
  ...httpApiPages(worker.openApi, loadHttpExamples(docsRoot)),
  ...notesPages(),
  ...benchReportPages(docsRoot),
  ...agentPages(worker.agentRecipes),
  [
    `${HTTP_API_DIR}/index.md`,
    fromTemplate("http-api.md", "the Worker's OpenAPI document", {
      operations: httpApiIndex(worker.openApi),
    }),
  ],
  [
    "src/content/docs/reference/error-codes.md",
    fromTemplate("error-codes.md", "apps/worker/src/api/error-catalog.ts", {
      codes: errorCodesTable(worker.errorCatalog),
    }),
  ],
  [
    "src/content/docs/reference/client.md",
    fromTemplate(
      "client-reference.md",
      "packages/client/src (types and JSDoc)",
      clientReferenceParts(),
    ),
  ],
  [
    "src/content/docs/start/troubleshooting.md",
    fromTemplate(
      "troubleshooting.md",
      "troubleshooting-examples.json and apps/worker/src/api/error-catalog.ts",
      { ...troubleshootingParts(docsRoot), codes: errorCodesTable(worker.errorCatalog) },
    ),
  ],
  [
    "src/content/docs/reference/configuration.md",
    fromTemplate("configuration.md", "apps/worker/wrangler.jsonc and src/*.d.ts", {
      settings: configurationTable(),
    }),
  ],
  [
    "src/content/docs/reference/engine-options.md",
    fromTemplate("engine-options.md", "packages/core/src/compact/types.ts", {
      input: engineInterfaceTable("CompactInput"),
      options: engineInterfaceTable("CompactOptions"),
      result: engineInterfaceTable("CompactResult"),
    }),
  ],
  [
    "src/content/docs/benchmarks/index.md",
    fromTemplate("benchmarks.md", "bench-results/", {
      runs: benchmarksSection(docsRoot),
      reports: benchReportsList(docsRoot),
    }),
  ],
]);

/** Folders whose every page is generated: a page there that no source makes is stale too. */
const GENERATED_DIRS = [HTTP_API_DIR, NOTES_DIR, AGENTS_DIR, BENCH_RUNS_DIR];

// The written pages' snippet blocks, refreshed from snippets/; the repository's README shows two.
// The design notes' sources are written pages too: they quote measured figures.
for (const path of [
  ...markdownFiles(docsRoot, "src/content/docs"),
  ...markdownFiles(docsRoot, "../../docs/notes"),
  "../../README.md",
]) {
  // A page of a generated folder that no source made is an orphan, not a written page.
  const generated = GENERATED_DIRS.some((dir) => path.startsWith(`${dir}/`));
  if (!pages.has(path) && !generated) {
    pages.set(path, withSnippets(readFileSync(join(docsRoot, path), "utf8"), snippetsDir));
  }
}

// Every quoted measured figure, from the newest recorded bench runs (`figures.ts`).
const figures = loadFigures(docsRoot);
for (const [path, text] of pages) pages.set(path, withFigures(text, figures, path));
// Every quoted agent recipe, as `pnpm start` prints it (`apps/worker/scripts/agent-recipes`).
for (const [path, text] of pages) pages.set(path, withRecipes(text, worker.agentRecipes, path));

const orphans = GENERATED_DIRS.flatMap((dir) =>
  existsSync(join(docsRoot, dir))
    ? readdirSync(join(docsRoot, dir))
        .map((file) => `${dir}/${file}`)
        .filter((path) => !pages.has(path))
    : [],
);

if (check) {
  const stale = [...pages].filter(([path, text]) => {
    const full = join(docsRoot, path);
    return !existsSync(full) || readFileSync(full, "utf8") !== text;
  });
  const problems = [
    ...stale.map(([path]) => `${path} is stale`),
    ...orphans.map((p) => `${p} has no source any more`),
  ];
  if (problems.length > 0) {
    console.error(
      `${problems.join("\n")}\nThe generated docs no longer match their sources: run \`pnpm --filter @condense/docs generate\` and commit the pages.`,
    );
    process.exit(1);
  }
  console.log(`${pages.size} pages match their sources`);
} else {
  for (const path of orphans) rmSync(join(docsRoot, path));
  for (const [path, text] of pages) {
    mkdirSync(dirname(join(docsRoot, path)), { recursive: true });
    writeFileSync(join(docsRoot, path), text);
  }
  console.log(
    `wrote ${pages.size} pages${orphans.length > 0 ? `, removed ${orphans.length}` : ""}`,
  );
}
