/**
 * @module scripts/repo-links
 * `node scripts/repo-links.ts` (the docs package's `test`): every relative link of the
 * repository's own Markdown — the READMEs, CONTRIBUTING.md, docs/notes — resolves: the file or
 * folder exists, and a `#fragment` names a heading of the Markdown file it points to (GitHub's
 * slugs). The site's pages link by site path and are checked by the site's build
 * (starlight-links-validator) instead.
 */

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import GithubSlugger from "github-slugger";
import type { Heading, Nodes } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { toString as textOf } from "mdast-util-to-string";
import { repoRoot } from "./worker-source.ts";

/** Markdown files of the site, linked by site path, not by file. */
const SITE = ["apps/docs/src/content/", "apps/docs/templates/"];

function walk(node: Nodes, visit: (node: Nodes) => void): void {
  visit(node);
  if ("children" in node) for (const child of node.children) walk(child, visit);
}

const anchorsCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  const cached = anchorsCache.get(file);
  if (cached !== undefined) return cached;
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  walk(fromMarkdown(readFileSync(file, "utf8")), (node) => {
    if (node.type === "heading") anchors.add(slugger.slug(textOf(node as Heading)));
  });
  anchorsCache.set(file, anchors);
  return anchors;
}

function problemsOf(file: string): string[] {
  const problems: string[] = [];
  const tree = fromMarkdown(readFileSync(join(repoRoot, file), "utf8"));
  walk(tree, (node) => {
    if (node.type !== "link" && node.type !== "image" && node.type !== "definition") return;
    const url = node.url;
    if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith("//")) return;
    const [rawPath = "", fragment] = url.split("#", 2);
    const path = decodeURIComponent(rawPath);
    const target = path === "" ? join(repoRoot, file) : join(repoRoot, dirname(file), path);
    const where = `${file}:${node.position?.start.line ?? "?"}`;
    if (path.startsWith("/")) {
      problems.push(`${where}: ${url} is absolute; link relative to the file`);
      return;
    }
    if (!existsSync(target)) {
      problems.push(`${where}: ${url} names ${relative(repoRoot, target)}, which does not exist`);
      return;
    }
    if (fragment !== undefined && statSync(target).isFile() && target.endsWith(".md")) {
      if (!anchorsOf(target).has(fragment)) {
        problems.push(`${where}: ${url}: no heading #${fragment} in ${relative(repoRoot, target)}`);
      }
    }
  });
  return problems;
}

const files = execFileSync(
  "git",
  ["ls-files", "--cached", "--others", "--exclude-standard", "*.md"],
  {
    cwd: repoRoot,
    encoding: "utf8",
  },
)
  .split("\n")
  .filter((file) => file !== "" && !SITE.some((prefix) => file.startsWith(prefix)))
  .filter((file) => existsSync(join(repoRoot, file)));
const problems = files.flatMap(problemsOf);
if (problems.length > 0) {
  console.error(
    `${problems.join("\n")}\n${problems.length} broken relative links in the repository's Markdown`,
  );
  process.exit(1);
}
console.log(`${files.length} Markdown files: every relative link resolves`);
