/**
 * @module scripts/configuration
 * The Worker's settings, from where they are declared: the vars of `wrangler.jsonc` (each with the
 * comment above it and its default), the secrets of `src/secrets.d.ts` and the optional bindings
 * of `src/optional-bindings.d.ts` (each with its JSDoc).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { code, table } from "./markdown.ts";
import { workerRoot } from "./worker-source.ts";

interface Setting {
  name: string;
  kind: string;
  defaultValue: string;
  what: string;
}

/** The `vars` block of wrangler.jsonc, read line by line: JSONC's comments are the documentation. */
function vars(): Setting[] {
  const lines = readFileSync(join(workerRoot, "wrangler.jsonc"), "utf8").split("\n");
  const start = lines.findIndex((line) => /^\s*"vars"\s*:\s*\{/.test(line));
  if (start < 0) throw new Error("wrangler.jsonc has no vars block");
  const settings: Setting[] = [];
  let comment: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*\}/.test(line)) break;
    const note = /^\s*\/\/\s?(.*)$/.exec(line);
    if (note !== null) {
      // A `// ---- heading` line groups the vars below it; it describes none of them.
      if (note[1]?.startsWith("----") === true) comment = [];
      else comment.push(note[1] ?? "");
      continue;
    }
    const entry = /^\s*"([A-Z0-9_]+)"\s*:\s*("(?:[^"\\]|\\.)*"|[^,]+),?\s*$/.exec(line);
    if (entry !== null) {
      const value = JSON.parse(entry[2] ?? '""') as unknown;
      settings.push({
        name: entry[1] ?? "",
        kind: "var",
        defaultValue: value === "" ? "empty" : code(String(value)),
        what: comment.join(" "),
      });
    }
    comment = [];
  }
  return settings;
}

/** The properties of one interface of a declaration file, with their JSDoc. */
function declared(file: string, interfaceName: string, kind: string): Setting[] {
  const path = join(workerRoot, "src", file);
  const source = ts.createSourceFile(
    path,
    readFileSync(path, "utf8"),
    ts.ScriptTarget.Latest,
    true,
  );
  const settings: Setting[] = [];
  source.forEachChild((node) => {
    if (!ts.isInterfaceDeclaration(node) || node.name.text !== interfaceName) return;
    for (const member of node.members) {
      if (!ts.isPropertySignature(member) || !ts.isIdentifier(member.name)) continue;
      const docs = ts.getJSDocCommentsAndTags(member).filter(ts.isJSDoc);
      const what = docs
        .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? "")
        .join(" ")
        .replace(/\s+/g, " ")
        .trim();
      settings.push({ name: member.name.text, kind, defaultValue: "—", what });
    }
  });
  if (settings.length === 0) throw new Error(`no ${interfaceName} in ${path}`);
  return settings;
}

export function configurationTable(): string {
  const settings = [
    ...declared("secrets.d.ts", "WorkerSecrets", "secret"),
    ...vars(),
    ...declared("optional-bindings.d.ts", "OptionalBindings", "binding (optional)"),
  ];
  return table(
    ["name", "kind", "default", "what"],
    settings.map((s) => [code(s.name), s.kind, s.defaultValue, s.what]),
  );
}
