/**
 * @module scripts/configuration
 * The Worker's settings, from where they are declared: the vars of `wrangler.jsonc` (each with the
 * comment above it and its default), the secrets of `src/secrets.d.ts`, the bindings of
 * `wrangler.jsonc` (each with the comment above its block) and the optional bindings of
 * `src/optional-bindings.d.ts` (each with its JSDoc). `workerSettingNames` also reads the names
 * the configuration's zod schema and the Worker's code read, so a test can tell when one is in
 * none of those declarations.
 */

import { readdirSync, readFileSync } from "node:fs";
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

function wranglerLines(): string[] {
  return readFileSync(join(workerRoot, "wrangler.jsonc"), "utf8").split("\n");
}

/** The `vars` block of wrangler.jsonc, read line by line: JSONC's comments are the documentation. */
function vars(): Setting[] {
  const lines = wranglerLines();
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

/**
 * The `//` comment lines right above a top-level key of wrangler.jsonc, joined; else those that
 * open its block (`"durable_objects": {` followed by its comment).
 */
function commentAbove(lines: readonly string[], key: string): string {
  const at = lines.findIndex((line) => line.startsWith(`  "${key}"`));
  if (at < 0) return "";
  const noteAt = (i: number) => /^\s*\/\/\s?(.*)$/.exec(lines[i] ?? "")?.[1];
  const comment: string[] = [];
  for (let i = at - 1; noteAt(i) !== undefined; i--) comment.unshift(noteAt(i) ?? "");
  if (comment.length === 0) {
    for (let i = at + 1; noteAt(i) !== undefined; i++) comment.push(noteAt(i) ?? "");
  }
  return comment.join(" ");
}

/** The `//` comment lines right above the line that names binding `name` (`"name": "SESSIONS"`). */
function commentAboveBinding(lines: readonly string[], name: string): string {
  const at = lines.findIndex((line) => line.includes(`"name": "${name}"`));
  const comment: string[] = [];
  for (let i = at - 1; at > 0; i--) {
    const note = /^\s*\/\/\s?(.*)$/.exec(lines[i] ?? "")?.[1];
    if (note === undefined) break;
    comment.unshift(note);
  }
  return comment.join(" ");
}

interface WranglerConfig {
  assets?: { binding?: string };
  durable_objects?: { bindings?: { name: string; class_name: string }[] };
  ratelimits?: { name: string; simple?: { limit: number; period: number } }[];
  ai?: { binding: string };
  vectorize?: { binding: string; index_name?: string }[];
  analytics_engine_datasets?: { binding: string; dataset?: string }[];
}

/** The bindings `wrangler.jsonc` configures, each with the comment above its block. */
export function workerBindings(): Setting[] {
  const lines = wranglerLines();
  const parsed = ts.parseConfigFileTextToJson("wrangler.jsonc", lines.join("\n"));
  if (parsed.error !== undefined) throw new Error("wrangler.jsonc does not parse");
  const config = parsed.config as WranglerConfig;
  const bindings: Setting[] = [];
  for (const object of config.durable_objects?.bindings ?? []) {
    bindings.push({
      name: object.name,
      kind: "binding (Durable Object)",
      defaultValue: code(object.class_name),
      // Each binding's own comment; the block's when it has none.
      what: commentAboveBinding(lines, object.name) || commentAbove(lines, "durable_objects"),
    });
  }
  if (config.assets?.binding !== undefined) {
    bindings.push({
      name: config.assets.binding,
      kind: "binding (assets)",
      defaultValue: "—",
      what: commentAbove(lines, "build"),
    });
  }
  for (const limiter of config.ratelimits ?? []) {
    const simple = limiter.simple;
    bindings.push({
      name: limiter.name,
      kind: "binding (rate limiting)",
      defaultValue: simple === undefined ? "—" : `${simple.limit} per ${simple.period} s`,
      what: commentAbove(lines, "ratelimits"),
    });
  }
  const optional: [string | undefined, string][] = [
    [config.ai?.binding, "ai"],
    ...(config.vectorize ?? []).map((v): [string, string] => [v.binding, "vectorize"]),
    ...(config.analytics_engine_datasets ?? []).map((a): [string, string] => [
      a.binding,
      "analytics_engine_datasets",
    ]),
  ];
  for (const [name, key] of optional) {
    if (name !== undefined) {
      bindings.push({ name, kind: "binding", defaultValue: "—", what: commentAbove(lines, key) });
    }
  }
  return bindings;
}

/** The keys of the `EnvSchema` object in the Worker's configuration module. */
function schemaKeys(): string[] {
  const path = join(workerRoot, "src", "config", "worker-config.ts");
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest);
  const keys: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === "EnvSchema" &&
      node.initializer !== undefined &&
      ts.isCallExpression(node.initializer)
    ) {
      const shape = node.initializer.arguments[0];
      if (shape !== undefined && ts.isObjectLiteralExpression(shape)) {
        for (const property of shape.properties) {
          if (property.name !== undefined && ts.isIdentifier(property.name)) {
            keys.push(property.name.text);
          }
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  if (keys.length === 0) throw new Error(`no EnvSchema = z.object({…}) in ${path}`);
  return keys;
}

/** Names the Worker's production code reads as `env.NAME`. */
function namesReadFromEnv(): string[] {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/(?<!\.test|\.d)\.ts$/.test(entry.name)) {
        for (const match of readFileSync(path, "utf8").matchAll(/\benv\.([A-Z][A-Z0-9_]+)\b/g)) {
          names.add(match[1] ?? "");
        }
      }
    }
  };
  walk(join(workerRoot, "src"));
  return [...names];
}

/**
 * Every variable and secret the Worker reads: the configuration schema's keys, the names its code
 * reads from `env`, the vars of `wrangler.jsonc` and the secrets of `secrets.d.ts`; bindings are
 * left out (`workerBindings`, `optional-bindings.d.ts`).
 */
export function workerSettingNames(): string[] {
  const bindings = new Set([
    ...workerBindings().map((b) => b.name),
    ...declared("optional-bindings.d.ts", "OptionalBindings", "").map((b) => b.name),
  ]);
  const names = new Set([
    ...schemaKeys(),
    ...namesReadFromEnv(),
    ...vars().map((s) => s.name),
    ...declared("secrets.d.ts", "WorkerSecrets", "").map((s) => s.name),
  ]);
  return [...names].filter((name) => !bindings.has(name)).sort();
}

export function configurationTable(): string {
  const settings = [
    ...declared("secrets.d.ts", "WorkerSecrets", "secret"),
    ...vars(),
    ...workerBindings(),
    ...declared("optional-bindings.d.ts", "OptionalBindings", "binding (optional)"),
  ];
  return table(
    ["name", "kind", "default", "what"],
    settings.map((s) => [code(s.name), s.kind, s.defaultValue, s.what]),
  );
}
