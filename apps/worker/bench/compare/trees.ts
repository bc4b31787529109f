/**
 * @module bench/compare/trees
 * The two checkouts a comparison runs: the change (this checkout, as it is on disk) and the base
 * (a commit, by default the merge base with main, checked out in a temporary git worktree,
 * installed from the shared pnpm store and built as far as the figures need: the engine's and the client's dist/;
 * `wrangler dev` builds the Worker itself).
 */

import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Tree {
  name: "base" | "change";
  /** The checkout's root. */
  dir: string;
  /** The commit it holds. */
  commit: string;
  /** For the report: the commit, and whether files differ from it. */
  label: string;
}

function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
}

/** Runs a build step quietly; its output only when it fails. */
function step(cwd: string, command: string, args: string[]): void {
  try {
    execFileSync(command, args, { cwd, encoding: "utf8", stdio: "pipe" });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(" ")} failed in ${cwd}:\n${(stdout ?? "").slice(-3_000)}${(stderr ?? "").slice(-3_000)}`,
    );
  }
}

/**
 * The packages' dist/ that `wrangler dev` needs: the engine, which the Worker imports by name, and
 * the client, which the inspector's build does.
 */
export function buildPackages(dir: string): void {
  // The token tables' modules in core's src/, which turbo's cache does not restore and the
  // inspector's build (run by wrangler) reads.
  step(dir, "pnpm", [
    "--filter",
    "@condense/core",
    "exec",
    "node",
    "--import",
    "tsx",
    "scripts/build-rank-data.ts",
  ]);
  // Through turbo, whose cache (shared by git worktrees) skips a build it has made before.
  step(dir, "pnpm", [
    "exec",
    "turbo",
    "run",
    "build",
    "--filter=@condense/core",
    "--filter=@condense/client",
    "--output-logs=errors-only",
  ]);
}

export function changeTree(repo: string): Tree {
  const commit = git(repo, ["rev-parse", "HEAD"]);
  const dirty = git(repo, ["status", "--porcelain", "--untracked-files=no"]) !== "";
  const label = `${commit.slice(0, 10)}${dirty ? " + uncommitted changes" : ""}`;
  return { name: "change", dir: repo, commit, label };
}

/**
 * The commit `ref` names, by default the merge base of HEAD with `main` (`origin/main` when there
 * is no local `main`). On main itself that is HEAD: the comparison is then of HEAD with itself,
 * which measures the noise and nothing else (the report says so).
 */
export function resolveBase(
  repo: string,
  ref: string | undefined,
): { commit: string; how: string } {
  if (ref !== undefined) return { commit: git(repo, ["rev-parse", `${ref}^{commit}`]), how: ref };
  for (const main of ["main", "origin/main"]) {
    try {
      return { commit: git(repo, ["merge-base", "HEAD", main]), how: `merge base with ${main}` };
    } catch {
      // no such branch here: try the next
    }
  }
  throw new Error("no main or origin/main to take the merge base with: give --base <ref>");
}

/**
 * The base checked out (detached) in a worktree under the system's temporary folder, installed
 * and built; one built before for the same commit is used again (a marker file says it was built
 * whole). `remove()` deletes the worktree.
 */
export function baseTree(repo: string, commit: string): Tree & { remove(): void } {
  const dir = join(tmpdir(), `condense-bench-base-${commit.slice(0, 12)}`);
  const ready = join(dir, ".bench-compare-ready");
  const remove = () => {
    try {
      git(repo, ["worktree", "remove", "--force", dir]);
    } catch {
      // already gone
    }
  };
  if (!existsSync(ready)) {
    if (existsSync(dir)) remove();
    git(repo, ["worktree", "add", "--detach", dir, commit]);
    try {
      // The lockfile's packages are in the shared store already: no download unless one is new.
      step(dir, "pnpm", ["install", "--frozen-lockfile", "--prefer-offline"]);
      buildPackages(dir);
    } catch (error) {
      remove();
      throw error;
    }
    writeFileSync(ready, `${commit}\n`);
  }
  return { name: "base", dir, commit, label: commit.slice(0, 10), remove };
}
