/**
 * The generator's pure parts: Markdown cells and code spans that hold any text, schemas named in a
 * few words, operation slugs, and snippet blocks refreshed from their files. Run by the docs
 * package's `test` (`node --test`).
 */

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { operationsOf, typeOf } from "./http-api-pages.ts";
import { cell, code, table } from "./markdown.ts";
import { snippetText, withSnippets } from "./snippets.ts";
import type { OpenApiDocument } from "./worker-source.ts";

describe("markdown", () => {
  it("keeps any text inside its table cell", () => {
    assert.equal(cell("a | b\n  c"), "a \\| b c");
    assert.equal(table(["x"], [["1|2"]]), "| x |\n| --- |\n| 1\\|2 |\n");
  });

  it("fences code that holds backticks with a longer fence", () => {
    assert.equal(code("plain"), "`plain`");
    assert.equal(code("a `b` c"), "``a `b` c``");
    assert.equal(code("`edge`"), "`` `edge` ``");
  });
});

describe("http-api-pages", () => {
  it("names a schema by its ref, enum, union or item type", () => {
    assert.equal(typeOf({ $ref: "#/components/schemas/AppendRequest" }), "AppendRequest");
    assert.equal(typeOf({ enum: ["a", "b"] }), '"a" \\| "b"');
    assert.equal(typeOf({ anyOf: [{ type: "string" }, { type: "null" }] }), "string \\| null");
    assert.equal(typeOf({ type: "array", items: { type: "integer" } }), "integer[]");
    assert.equal(typeOf({ properties: {} }), "object");
    assert.equal(typeOf(undefined), "any");
  });

  it("gives each operation a slug from its method and path, in document order", () => {
    const document: OpenApiDocument = {
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      paths: {
        "/v1/sessions/{id}": { get: {}, delete: {} },
        "/v1/gateway/{upstream}/chat/completions": { post: {} },
      },
    };
    assert.deepEqual(
      operationsOf(document).map((op) => op.slug),
      ["get-v1-sessions-id", "delete-v1-sessions-id", "post-v1-gateway-upstream-chat-completions"],
    );
  });
});

describe("snippets", () => {
  const folder = mkdtempSync(join(tmpdir(), "docs-snippets-"));
  writeFileSync(join(folder, "whole.ts"), "const a = 1;\n");
  writeFileSync(
    join(folder, "region.ts"),
    "declare const x: string;\n// #region snippet\n\nconsole.log(x);\n// #endregion\nexport {};\n",
  );
  writeFileSync(join(folder, "open.ts"), "// #region snippet\nconst b = 2;\n");

  it("shows a file's region when it marks one, else the whole file", () => {
    assert.equal(snippetText(folder, "whole.ts"), "const a = 1;");
    assert.equal(snippetText(folder, "region.ts"), "console.log(x);");
    assert.throws(() => snippetText(folder, "open.ts"), /has no "\/\/ #endregion"/);
    assert.throws(() => snippetText(folder, "../escape.ts"), /name a \.ts file/);
  });

  it("refreshes only the blocks that name a snippet, whatever they held", () => {
    const page = [
      "Intro",
      "```ts snippet=whole.ts",
      "stale code",
      "```",
      "```ts",
      "untouched();",
      "```",
    ].join("\n");
    assert.equal(
      withSnippets(page, folder),
      [
        "Intro",
        "```ts snippet=whole.ts",
        "const a = 1;",
        "```",
        "```ts",
        "untouched();",
        "```",
      ].join("\n"),
    );
  });
});
