/**
 * @module scripts/http-api-pages
 * The HTTP API reference: a page per operation of the Worker's OpenAPI document (the one it serves
 * at `/openapi.json`), with its parameters, request body and responses, and an index of them all.
 */

import { exampleSection, type HttpExample } from "./http-examples.ts";
import { code, frontMatter, generatedBanner, table } from "./markdown.ts";
import type { JsonSchema, OpenApiDocument, OpenApiOperation } from "./worker-source.ts";

export const HTTP_API_DIR = "src/content/docs/reference/http-api";

const METHODS = ["get", "post", "put", "patch", "delete"];

interface Operation {
  method: string;
  path: string;
  operation: OpenApiOperation;
  slug: string;
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const slug = `${method}-${path}`
        .replace(/[{}]/g, "")
        .replace(/[^A-Za-z0-9]+/g, "-")
        .replace(/-+$/, "")
        .toLowerCase();
      operations.push({ method, path, operation, slug });
    }
  }
  return operations;
}

/** A schema in a few words: its type, `$ref` name, enum values or the union of its variants. */
export function typeOf(schema: JsonSchema | undefined): string {
  if (schema === undefined) return "any";
  if (schema.$ref !== undefined) return schema.$ref.split("/").pop() ?? schema.$ref;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum !== undefined)
    return schema.enum.map((value) => JSON.stringify(value)).join(" \\| ");
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants !== undefined) return variants.map(typeOf).join(" \\| ");
  if (schema.allOf !== undefined) return schema.allOf.map(typeOf).join(" & ");
  const types = Array.isArray(schema.type)
    ? schema.type
    : schema.type === undefined
      ? []
      : [schema.type];
  if (types.includes("array")) return `${typeOf(schema.items)}[]`;
  if (types.length === 0) return schema.properties === undefined ? "any" : "object";
  return types.join(" \\| ");
}

function constraints(schema: JsonSchema): string {
  const parts: string[] = [];
  if (schema.minimum !== undefined) parts.push(`≥ ${schema.minimum}`);
  if (schema.maximum !== undefined) parts.push(`≤ ${schema.maximum}`);
  if (schema.minLength !== undefined) parts.push(`length ≥ ${schema.minLength}`);
  if (schema.maxLength !== undefined) parts.push(`length ≤ ${schema.maxLength}`);
  if (schema.pattern !== undefined) parts.push(`pattern ${code(schema.pattern)}`);
  if (schema.default !== undefined) parts.push(`default ${code(JSON.stringify(schema.default))}`);
  return parts.join(", ");
}

function describe(schema: JsonSchema | undefined): string {
  if (schema === undefined) return "";
  const limits = constraints(schema);
  return [schema.description ?? "", limits === "" ? "" : `(${limits})`]
    .filter((s) => s !== "")
    .join(" ");
}

function resolve(
  document: OpenApiDocument,
  schema: JsonSchema | undefined,
): JsonSchema | undefined {
  if (schema?.$ref === undefined) return schema;
  const name = schema.$ref.split("/").pop() ?? "";
  return document.components?.schemas?.[name] ?? schema;
}

/** The top-level fields of an object schema as a table, or a line naming the schema's type. */
function fields(document: OpenApiDocument, schema: JsonSchema | undefined): string {
  const resolved = resolve(document, schema);
  const properties = resolved?.properties;
  if (resolved === undefined || properties === undefined) return `Type: ${code(typeOf(schema))}.\n`;
  const required = new Set(resolved.required ?? []);
  const rows = Object.entries(properties).map(([name, property]) => [
    code(name),
    code(typeOf(property)),
    required.has(name) ? "yes" : "",
    describe(property),
  ]);
  const named = schema?.$ref === undefined ? "" : `Schema ${code(typeOf(schema))}.\n\n`;
  return `${named}${table(["field", "type", "required", "description"], rows)}`;
}

/** The schema in full, a top-level `$ref` replaced by the component it names. */
function jsonBlock(document: OpenApiDocument, schema: JsonSchema | undefined): string {
  const value = resolve(document, schema) ?? {};
  return `<details>\n<summary>JSON Schema</summary>\n\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`\n\n</details>\n`;
}

function operationPage(
  document: OpenApiDocument,
  op: Operation,
  order: number,
  example: HttpExample,
): string {
  const { method, path, operation } = op;
  const title = operation.summary ?? `${method.toUpperCase()} ${path}`;
  const out: string[] = [
    frontMatter({
      title,
      description: `${method.toUpperCase()} ${path}`,
      sidebarLabel: `${method.toUpperCase()} ${path.replace(/^\/v1/, "")}`,
      order,
    }),
    generatedBanner("the Worker's OpenAPI document (GET /openapi.json) and http-examples.json"),
    "```http",
    `${method.toUpperCase()} ${path}`,
    "```",
    "",
  ];
  if (operation.description !== undefined) out.push(operation.description, "");
  const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
  const gateway = path.startsWith("/v1/gateway/");
  out.push(
    `**Authentication:** ${
      isPublic
        ? "none (public)."
        : gateway
          ? "`X-Condense-Key` beside the provider's key, or the Condense credential as the provider key (see [the gateway](/guides/gateway/))."
          : "`Authorization: Bearer <API key or JWT>` (see [authentication](/operations/auth/))."
    }`,
    "",
  );
  if (operation.tags !== undefined && operation.tags.length > 0) {
    out.push(`**Tags:** ${operation.tags.map(code).join(", ")}`, "");
  }
  out.push(exampleSection(example));
  const parameters = operation.parameters ?? [];
  if (parameters.length > 0) {
    out.push(
      "## Parameters",
      "",
      table(
        ["name", "in", "type", "required", "description"],
        parameters.map((p) => [
          code(p.name),
          p.in,
          code(typeOf(p.schema)),
          p.required === true ? "yes" : "",
          // The schema often repeats the parameter's description; say it once.
          [
            p.description ?? "",
            p.schema === undefined
              ? ""
              : describe(
                  p.schema.description === p.description
                    ? { ...p.schema, description: undefined }
                    : p.schema,
                ),
          ]
            .filter((s) => s !== "")
            .join(" "),
        ]),
      ),
    );
  }
  const body = operation.requestBody;
  if (body !== undefined) {
    out.push("## Request body", "");
    if (body.description !== undefined) out.push(body.description, "");
    for (const [type, media] of Object.entries(body.content ?? {})) {
      out.push(`${code(type)}${body.required === true ? " (required)" : ""}`, "");
      out.push(fields(document, media.schema), jsonBlock(document, media.schema));
    }
  }
  out.push("## Responses", "");
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    out.push(`### ${status}`, "", response.description ?? "", "");
    for (const [type, media] of Object.entries(response.content ?? {})) {
      out.push(code(type), "", fields(document, media.schema), jsonBlock(document, media.schema));
    }
  }
  return `${out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trimEnd()}\n`;
}

function indexTable(operations: readonly Operation[]): string {
  return table(
    ["operation", "what"],
    operations.map((op) => [
      `[${code(`${op.method.toUpperCase()} ${op.path}`)}](/reference/http-api/${op.slug}/)`,
      op.operation.summary ?? "",
    ]),
  );
}

/** The page of each operation, by path relative to apps/docs. */
export function httpApiPages(
  document: OpenApiDocument,
  examples: ReadonlyMap<string, HttpExample>,
): Map<string, string> {
  const pages = new Map<string, string>();
  operationsOf(document).forEach((op, index) => {
    const name = `${op.method.toUpperCase()} ${op.path}`;
    const example = examples.get(name);
    if (example === undefined) {
      throw new Error(
        `${name} has no example in http-examples.json: add a request to apps/worker/test/api/http-examples.test.ts and re-record it (npx vitest run test/api/http-examples.test.ts -u)`,
      );
    }
    pages.set(`${HTTP_API_DIR}/${op.slug}.md`, operationPage(document, op, index + 10, example));
  });
  return pages;
}

/** The table of every operation, for the index page's template. */
export function httpApiIndex(document: OpenApiDocument): string {
  return indexTable(operationsOf(document));
}
