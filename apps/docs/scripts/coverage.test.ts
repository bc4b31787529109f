/**
 * The docs cover what the Worker is: every operation of its OpenAPI document in the HTTP API's
 * routes at a glance (written by hand), every error code on the error-code page, and every
 * variable, secret and binding the Worker reads in the configuration reference and on the
 * production page (written by hand) with its `wrangler.jsonc`. Run by the docs package's `test`
 * (`node --test`); the generated pages' staleness is `generate --check`'s.
 */

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import ts from "typescript";
import { workerBindings, workerSettingNames } from "./configuration.ts";
import { operationsOf } from "./http-api-pages.ts";
import { loadWorkerSources, repoRoot, type WorkerSources } from "./worker-source.ts";

const docsRoot = join(repoRoot, "apps", "docs");
const page = (path: string) => readFileSync(join(docsRoot, path), "utf8");

/** The `METHOD /path` items of the first cells of the template's "Routes at a glance" table. */
function routesAtAGlance(): Set<string> {
  const text = page("templates/http-api.md");
  const start = text.indexOf("## Routes at a glance");
  const end = text.indexOf("\n## ", start + 1);
  const routes = new Set<string>();
  for (const line of text.slice(start, end).split("\n")) {
    const first = /^\|([^|]+)\|/.exec(line)?.[1] ?? "";
    for (const item of first.matchAll(/`([A-Z]+) ([^`?\s]+)[^`]*`/g)) {
      routes.add(`${item[1]} ${item[2]}`);
    }
  }
  return routes;
}

/** The first ```jsonc block of a page, read as wrangler reads it (comments, trailing commas). */
function jsoncBlock(text: string): Record<string, unknown> {
  const block = /```jsonc\n([\s\S]*?)\n```/.exec(text)?.[1];
  assert.ok(block !== undefined, "the page shows a ```jsonc block");
  const parsed = ts.parseConfigFileTextToJson("wrangler.jsonc", block);
  assert.equal(parsed.error, undefined, "the jsonc block parses");
  return parsed.config as Record<string, unknown>;
}

describe("coverage of the docs", () => {
  let worker: WorkerSources;
  before(async () => {
    worker = await loadWorkerSources();
  });

  it("lists every operation of /openapi.json in the HTTP API's routes at a glance", () => {
    const listed = routesAtAGlance();
    const missing = operationsOf(worker.openApi)
      .map((op) => `${op.method.toUpperCase()} ${op.path}`)
      .filter((route) => !listed.has(route));
    assert.deepEqual(missing, [], "add these to templates/http-api.md's routes at a glance");
  });

  it("gives every error code a row on the error-code page", () => {
    const text = page("src/content/docs/reference/error-codes.md");
    const missing = Object.keys(worker.errorCatalog).filter(
      (name) => !text.includes(`| \`${name}\` |`),
    );
    assert.deepEqual(missing, []);
  });

  it("names only error codes that exist on the operations and guide pages", () => {
    const known = new Set(Object.keys(worker.errorCatalog));
    const folders = ["operations", "guides", "concepts", "start"];
    const unknown: string[] = [];
    for (const folder of folders) {
      const dir = join(docsRoot, "src/content/docs", folder);
      for (const file of readdirSync(dir)) {
        // A status followed by a code in backticks: `429 rate_limited`, `503 \`auth_not_configured\``.
        for (const match of readFileSync(join(dir, file), "utf8").matchAll(
          /\b[45]\d\d `([a-z_]+)`/g,
        )) {
          const name = match[1] ?? "";
          if (!known.has(name)) unknown.push(`${folder}/${file}: ${name}`);
        }
      }
    }
    assert.deepEqual(unknown, []);
  });

  it("names every variable, secret and binding in the configuration reference", () => {
    const text = page("src/content/docs/reference/configuration.md");
    const names = [...workerSettingNames(), ...workerBindings().map((b) => b.name)];
    assert.ok(names.includes("RATE_LIMITER") && names.includes("SUMMARIZER_CONTEXT_WINDOW"));
    const missing = names.filter((name) => !text.includes(`| \`${name}\` |`));
    assert.deepEqual(missing, [], "each needs a row of reference/configuration.md");
  });

  it("gives every variable and binding on the production page, and in its wrangler.jsonc", () => {
    const text = page("src/content/docs/operations/production.md");
    const config = jsoncBlock(text);
    const vars = Object.keys((config.vars ?? {}) as Record<string, unknown>);
    const shown = JSON.stringify(config);
    const secrets = new Set(
      [
        "API_KEYS",
        "JWT_SECRET",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "SUMMARIZER_API_KEY",
      ].concat(["SUMMARIZER_BASE_URL", "BENCH_NO_SEARCH_INDEX", "GATEWAY_LOCAL_USER"]),
    );
    const missingRows = workerSettingNames().filter((name) => !text.includes(`\`${name}\``));
    assert.deepEqual(missingRows, [], "each needs a mention on operations/production.md");
    const missingVars = workerSettingNames().filter(
      (name) => !secrets.has(name) && !vars.includes(name),
    );
    assert.deepEqual(missingVars, [], "each var belongs in the page's wrangler.jsonc");
    const missingBindings = workerBindings()
      .map((b) => b.name)
      .filter((name) => !shown.includes(`"${name}"`));
    assert.deepEqual(missingBindings, [], "each binding belongs in the page's wrangler.jsonc");
  });
});
