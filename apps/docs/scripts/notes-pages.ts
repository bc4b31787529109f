/**
 * @module scripts/notes-pages
 * The design notes of docs/notes/*.md as pages of the site, so the guides can link to them and
 * the notes stay written where the code's authors keep them.
 */

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { frontMatter, generatedBanner } from "./markdown.ts";
import { repoRoot } from "./worker-source.ts";

export const NOTES_DIR = "src/content/docs/notes";

export function notesPages(): Map<string, string> {
  const folder = join(repoRoot, "docs", "notes");
  const pages = new Map<string, string>();
  for (const file of readdirSync(folder)
    .filter((name) => name.endsWith(".md"))
    .sort()) {
    const text = readFileSync(join(folder, file), "utf8");
    const heading = /^# (.+)\n/.exec(text);
    const title = heading?.[1] ?? file.replace(/\.md$/, "");
    const body = heading === null ? text : text.slice(heading[0].length);
    pages.set(
      `${NOTES_DIR}/${file}`,
      `${frontMatter({ title })}${generatedBanner(`docs/notes/${file}`)}${body.trimStart()}`,
    );
  }
  return pages;
}
