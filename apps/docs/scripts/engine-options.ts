/**
 * @module scripts/engine-options
 * The engine's input, options and result, from the JSDoc of their declarations in
 * packages/core/src/compact/types.ts (`CompactInput`, `CompactOptions`, `CompactResult`), each
 * member with its `@default` tag.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { code, table } from "./markdown.ts";
import { repoRoot } from "./worker-source.ts";

export const ENGINE_TYPES = "packages/core/src/compact/types.ts";

export function engineInterfaceTable(interfaceName: string): string {
  const path = join(repoRoot, ENGINE_TYPES);
  const source = ts.createSourceFile(
    path,
    readFileSync(path, "utf8"),
    ts.ScriptTarget.Latest,
    true,
  );
  const rows: string[][] = [];
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== interfaceName) return;
    for (const member of node.members) {
      if (!ts.isPropertySignature(member) || member.name === undefined) continue;
      const name = member.name.getText(source);
      const optional = member.questionToken !== undefined;
      const type = member.type === undefined ? "unknown" : member.type.getText(source);
      const what = ts
        .getJSDocCommentsAndTags(member)
        .filter(ts.isJSDoc)
        .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? "")
        .join(" ")
        .replace(/\s+/g, " ")
        .trim();
      const tag = ts.getJSDocTags(member).find((t) => t.tagName.text === "default");
      const fallback =
        tag === undefined
          ? ""
          : (ts.getTextOfJSDocComment(tag.comment) ?? "").replace(/\s+/g, " ").trim();
      rows.push([
        code(name),
        code(type.replace(/\s+/g, " ")),
        optional ? "" : "yes",
        fallback === "" ? "" : code(fallback),
        what,
      ]);
    }
  });
  if (rows.length === 0) throw new Error(`no interface ${interfaceName} in ${ENGINE_TYPES}`);
  return table(["name", "type", "required", "default", "meaning"], rows);
}
