/**
 * @module harness/agent-clis
 * Where the agent CLIs live: pinned in `tests/agents/clis/package.json` and installed there apart
 * from the workspace (their own lockfile; the workspace's globs do not reach that folder), so the
 * repository's `pnpm install` does not download them (about 1 GB). The suite installs them when one
 * is missing or at another version than pinned; CI installs them before `pnpm test` (`.ci/run`).
 * Adding a CLI is one line in that package.json (then `pnpm install` there updates its lockfile).
 */

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const AGENT_CLIS_DIR = fileURLToPath(new URL("../../clis", import.meta.url));

/** An executable a pinned CLI package links (`claude`, `codex`, …). */
export function agentBin(name: string): string {
  return join(AGENT_CLIS_DIR, "node_modules", ".bin", name);
}

function versionOf(packageJson: string): unknown {
  return (JSON.parse(readFileSync(packageJson, "utf8")) as { version?: unknown }).version;
}

/** `name@version` of each pinned CLI that is not installed at that version. */
export function missingAgentClis(): string[] {
  const manifest = JSON.parse(readFileSync(join(AGENT_CLIS_DIR, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  return Object.entries(manifest.dependencies)
    .filter(([name, version]) => {
      const installed = join(AGENT_CLIS_DIR, "node_modules", name, "package.json");
      return !existsSync(installed) || versionOf(installed) !== version;
    })
    .map(([name, version]) => `${name}@${version}`);
}

/** Installs the pinned CLIs (from their lockfile) unless every one already is. */
export function ensureAgentClis(): void {
  const missing = missingAgentClis();
  if (missing.length === 0) return;
  console.log(`Installing the agent CLIs into ${AGENT_CLIS_DIR} (${missing.join(", ")}) …`);
  const install = spawnSync("pnpm", ["install", "--frozen-lockfile"], {
    cwd: AGENT_CLIS_DIR,
    stdio: "inherit",
  });
  const still = install.status === 0 ? missingAgentClis() : missing;
  if (still.length > 0) {
    throw new Error(
      `installing the agent CLIs failed (pnpm exited ${install.status ?? install.error?.message}; still missing: ${still.join(", ")}): run \`pnpm install --frozen-lockfile\` in ${AGENT_CLIS_DIR}`,
    );
  }
}
