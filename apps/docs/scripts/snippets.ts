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

const REGION_START = "// #region snippet\n";
const REGION_END = "// #endregion";

/** The code a page shows from one snippet file. */
export function snippetText(snippetsDir: string, file: string): string {
  if (!/^[a-z0-9-]+\.ts$/.test(file)) {
    throw new Error(`snippet=${file}: name a .ts file of apps/docs/snippets`);
  }
  const text = readFileSync(join(snippetsDir, file), "utf8");
  const start = text.indexOf(REGION_START);
  if (start < 0) return text.trimEnd();
  const end = text.indexOf(REGION_END, start);
  if (end < 0) throw new Error(`snippets/${file}: "${REGION_START.trim()}" has no "${REGION_END}"`);
  // Biome's import sorting may leave a blank line after the region's opening comment.
  return text
    .slice(start + REGION_START.length, end)
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
