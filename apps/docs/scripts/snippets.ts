/**
 * @module scripts/snippets
 * The code blocks of the pages that show a snippet: a block opened as ```ts snippet=<file> holds
 * apps/docs/snippets/<file>, the part between `// #region snippet` and `// #endregion` when the
 * file marks one (the lines around it declare what the example assumes), else the whole file.
 * The snippets are type checked (`tsc -p snippets/tsconfig.json`), and `generate` copies them into
 * the pages (`--check` fails on a page whose copy differs), so a page never shows code that does
 * not compile, and the page's Markdown still reads whole on GitHub.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** The region's markers: `// #region snippet` in TypeScript, `# #region snippet` in shell. */
function markers(file: string): { start: string; end: string } {
  const comment = file.endsWith(".sh") ? "#" : "//";
  return { start: `${comment} #region snippet\n`, end: `${comment} #endregion` };
}

/** The code a page shows from one snippet file. */
export function snippetText(snippetsDir: string, file: string): string {
  if (!/^[a-z0-9-]+\.ts$/.test(file) && !/^journeys\/[a-z0-9-]+\.sh$/.test(file)) {
    throw new Error(
      `snippet=${file}: name a .ts file of apps/docs/snippets or a journeys/<name>.sh script`,
    );
  }
  const { start: regionStart, end: regionEnd } = markers(file);
  // A journey's script lives beside the snippets' folder, where its test runs it from.
  const text = readFileSync(
    file.startsWith("journeys/") ? join(snippetsDir, "..", file) : join(snippetsDir, file),
    "utf8",
  );
  const start = text.indexOf(regionStart);
  if (start < 0) return text.trimEnd();
  const end = text.indexOf(regionEnd, start);
  if (end < 0) throw new Error(`snippets/${file}: "${regionStart.trim()}" has no "${regionEnd}"`);
  // Biome's import sorting may leave a blank line after the region's opening comment.
  return text
    .slice(start + regionStart.length, end)
    .replace(/^\n+/, "")
    .trimEnd();
}

/** A page's text with each snippet block holding its file's current code. */
export function withSnippets(page: string, snippetsDir: string): string {
  return page.replace(
    /^(```\w* snippet=(\S+)[^\n]*)\n[\s\S]*?^```$/gm,
    (_block, opening: string, file: string) =>
      `${opening}\n${snippetText(snippetsDir, file)}\n\`\`\``,
  );
}

/** Every Markdown file under a folder, by path relative to `root`. */
export function markdownFiles(root: string, folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => relative(root, join(root, folder, file)))
    .sort();
}
