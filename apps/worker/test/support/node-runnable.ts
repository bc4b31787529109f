/**
 * @module test/support/node-runnable
 * Which of the Worker's module tests can run on Node, without workerd: those
 * whose runtime imports, followed through the Worker's own files, never reach
 * a `cloudflare:` module (`cloudflare:test`'s bindings and `SELF`,
 * `cloudflare:workers`' Durable Object base class). `vitest.unit.config.ts`
 * runs them for `pnpm test:fast`; `vitest.config.ts` still runs every test in
 * workerd. Read from the imports (with TypeScript's parser) rather than listed
 * by hand, so a test added later lands in the right tier by itself; type-only
 * imports are erased before anything runs, so they do not count.
 */

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

/** The specifiers `file` imports at run time (static and dynamic imports, re-exports). */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && node.importClause?.isTypeOnly !== true) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) found.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The file a relative specifier names (the Worker writes them with `.ts`, `.js` or no extension). */
function resolveLocal(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [base, `${base}.ts`, base.replace(/\.js$/, ".ts"), join(base, "index.ts")];
  return candidates.find((path) => path.endsWith(".ts") && existsSync(path));
}

/** Whether `file` or anything it imports at run time from this package needs workerd. */
function needsWorkerd(file: string, importsOf: (file: string) => string[]): boolean {
  const seen = new Set<string>([file]);
  const pending = [file];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const specifier of importsOf(next)) {
      if (specifier.startsWith("cloudflare:")) return true;
      const target = specifier.startsWith(".") ? resolveLocal(next, specifier) : undefined;
      if (target !== undefined && !seen.has(target)) {
        seen.add(target);
        pending.push(target);
      }
    }
  }
  return false;
}

/** The test files under `root/dir` (paths relative to `root`) that run on Node. */
export function nodeRunnableTests(root: string, dir: string): string[] {
  // Each file is parsed once, however many tests reach it.
  const parsed = new Map<string, string[]>();
  const importsOf = (file: string): string[] => {
    const known = parsed.get(file);
    if (known !== undefined) return known;
    const imports = runtimeImports(file);
    parsed.set(file, imports);
    return imports;
  };
  return ts.sys
    .readDirectory(join(root, dir), [".ts"], undefined, ["**/*.test.ts"])
    .filter((file) => !needsWorkerd(file, importsOf))
    .map((file) => relative(root, file))
    .sort();
}
