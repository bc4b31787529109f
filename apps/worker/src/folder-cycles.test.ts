/**
 * The Worker's folders form layers: no folder imports, through any chain of
 * files, a folder that imports it back (type-only imports included). A file at
 * the root of `src` is a layer of its own. The same holds for the rooms inside
 * a folder (`session/store/`, `session/context/`, `gateway/plans/`…): each
 * folder, at any depth, is a layer, and the files loose in a folder are one
 * layer above its rooms (a room never imports them). The sources are read as text by
 * Vite's `import.meta.glob`, which the test runner resolves before the test
 * runs in workerd (no file system there).
 */

import { describe, expect, it } from "vitest";

declare global {
  interface ImportMeta {
    glob(
      pattern: string | string[],
      options: { query: "?raw"; import: "default"; eager: true },
    ): Record<string, string>;
  }
}

const sources = import.meta.glob(["./**/*.ts", "!./**/*.test.ts", "!./**/*.d.ts"], {
  query: "?raw",
  import: "default",
  eager: true,
});

/** Every module specifier of a file's static imports and re-exports (`import type` included). */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/^(?:import|export)\b[^;()=]*?\bfrom\s*["']([^"']+)["']/gm)) {
    if (match[1] !== undefined) found.push(match[1]);
  }
  for (const match of text.matchAll(/^import\s*["']([^"']+)["']/gm)) {
    if (match[1] !== undefined) found.push(match[1]);
  }
  return found;
}

/** `./a/b.ts` relative to `./a/c/d.ts`'s `../b` etc.; undefined for a package import. */
function resolve(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

/** The layer of a file: its top folder under `src`, or the file itself at the root. */
function layerOf(path: string): string {
  const parts = path.replace(/^\.\//, "").split("/");
  return parts.length > 1 ? `${parts[0]}/` : (parts[0] ?? path).replace(/\.ts$/, "");
}

/** The room of a file: the folder it stands in, at any depth, or the file itself at the root. */
function roomOf(path: string): string {
  const parts = path.replace(/^\.\//, "").split("/");
  return parts.length > 1 ? `${parts.slice(0, -1).join("/")}/` : layerOf(path);
}

/** Layer → layer → the imports behind the arrow (`file → specifier`). */
function folderGraph(
  layer: (path: string) => string = layerOf,
): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const [path, text] of Object.entries(sources)) {
    const from = layer(path);
    for (const specifier of specifiers(text)) {
      const target = resolve(path, specifier);
      if (target === undefined || !target.startsWith("./")) continue;
      const to = layer(target);
      if (to === from) continue;
      const edges = graph.get(from) ?? new Map<string, string[]>();
      graph.set(from, edges);
      edges.set(to, [...(edges.get(to) ?? []), `${path} → ${specifier}`]);
    }
  }
  return graph;
}

/** Each cycle once: its folders in order, and the first imports behind each of its arrows. */
function cycles(graph: Map<string, Map<string, string[]>>): string[][] {
  const found: string[][] = [];
  const seen = new Set<string>();
  const walk = (path: string[]): void => {
    const last = path[path.length - 1] ?? "";
    for (const next of graph.get(last)?.keys() ?? []) {
      const at = path.indexOf(next);
      if (at === 0) {
        const key = [...path].sort().join(" ");
        if (seen.has(key)) continue;
        seen.add(key);
        const arrows = [...path, next].slice(1).map((to, index) => {
          const from = path[index] ?? "";
          return `${from} → ${to}: ${(graph.get(from)?.get(to) ?? []).slice(0, 3).join(", ")}`;
        });
        found.push(arrows);
      } else if (at === -1 && next > (path[0] ?? "")) {
        walk([...path, next]);
      }
    }
  };
  for (const start of [...graph.keys()].sort()) walk([start]);
  return found;
}

describe("the Worker's folders", () => {
  it("reads the sources and their imports", () => {
    const graph = folderGraph();
    expect(Object.keys(sources).length).toBeGreaterThan(50);
    expect(graph.get("routes/")?.has("session/")).toBe(true);
  });

  it("import one another without a cycle", () => {
    expect(cycles(folderGraph())).toEqual([]);
  });

  it("have rooms that import one another without a cycle", () => {
    const rooms = folderGraph(roomOf);
    // The rooms are read: the session's object composes its rooms, which stand on its store.
    expect(rooms.get("session/")?.has("session/turns/")).toBe(true);
    expect(rooms.get("session/context/")?.has("session/store/")).toBe(true);
    expect(rooms.get("gateway/plans/")?.has("gateway/protocols/")).toBe(true);
    expect(cycles(rooms)).toEqual([]);
  });
});
