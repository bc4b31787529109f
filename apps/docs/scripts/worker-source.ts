/**
 * @module scripts/worker-source
 * Loads the Worker's own modules into this Node process, without a running server: esbuild
 * bundles an entry that imports them (`cloudflare:workers` replaced by empty classes, since only
 * the Durable Object classes come from it and nothing here constructs one), and the bundle is
 * imported from a data: URL. So the OpenAPI document is the one the Worker serves at
 * `/openapi.json`, built by the same code.
 */

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const workerRoot = join(repoRoot, "apps", "worker");

export interface OpenApiOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: OpenApiParameter[];
  requestBody?: {
    description?: string;
    required?: boolean;
    content?: Record<string, { schema?: JsonSchema }>;
  };
  responses?: Record<
    string,
    { description?: string; content?: Record<string, { schema?: JsonSchema }> }
  >;
}

export interface OpenApiParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

export interface JsonSchema {
  type?: string | string[];
  $ref?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export interface ErrorCodeEntry {
  status: string;
  when: string;
}

/** An agent's recipe through the gateway (`apps/worker/scripts/agent-recipes`). */
export interface AgentRecipe {
  agent: string;
  title: string;
  env: Record<string, string>;
  keyVariable: string;
  files: { path: string; content: string }[];
  identity: string;
  namedSession?: string;
}

export interface WorkerSources {
  openApi: OpenApiDocument;
  errorCatalog: Record<string, ErrorCodeEntry>;
  /** The recipes `pnpm start` prints for a local gateway, and their shell lines. */
  agentRecipes: { recipe: AgentRecipe; lines: string[] }[];
}

interface BundledEntry {
  openApiDocument: () => Promise<OpenApiDocument>;
  errorCatalog: Record<string, ErrorCodeEntry>;
  agentRecipes: { recipe: AgentRecipe; lines: string[] }[];
}

const ENTRY = `
import { createApp } from "./src/app.ts";
import { ERROR_CATALOG } from "./src/api/error-catalog.ts";
import { localRecipes, recipeLines } from "./scripts/agent-recipes.ts";
export const errorCatalog = ERROR_CATALOG;
export const agentRecipes = localRecipes("http://localhost:8787").map((recipe) => ({
  recipe,
  lines: recipeLines(recipe),
}));
export async function openApiDocument() {
  // An empty environment: the configuration's defaults (the document depends on no variable).
  const response = await createApp().request("/openapi.json", {}, {});
  if (response.status !== 200) throw new Error("GET /openapi.json answered " + response.status);
  return response.json();
}
`;

export async function loadWorkerSources(): Promise<WorkerSources> {
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: workerRoot, loader: "ts", sourcefile: "docs-entry.ts" },
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "import"],
    write: false,
    logLevel: "warning",
    plugins: [
      {
        name: "cloudflare-workers-stub",
        setup(bundle) {
          bundle.onResolve({ filter: /^cloudflare:/ }, (args) => ({
            path: args.path,
            namespace: "cloudflare-stub",
          }));
          bundle.onLoad({ filter: /.*/, namespace: "cloudflare-stub" }, () => ({
            contents: "export class DurableObject {} export class WorkerEntrypoint {}",
            loader: "js",
          }));
        },
      },
    ],
  });
  const bundled = result.outputFiles[0];
  if (bundled === undefined) throw new Error("esbuild wrote no bundle of the Worker's modules");
  // The request log prints one JSON line per request; the generator's output is for people.
  const log = console.log;
  console.log = () => {};
  try {
    const url = `data:text/javascript;base64,${Buffer.from(bundled.text).toString("base64")}`;
    const loaded = (await import(url)) as BundledEntry;
    return {
      openApi: await loaded.openApiDocument(),
      errorCatalog: loaded.errorCatalog,
      agentRecipes: loaded.agentRecipes,
    };
  } finally {
    console.log = log;
  }
}
