/**
 * @module test-e2e/chromium
 * Finds the Chromium the browser tests drive (Debian's `chromium` package,
 * or `CHROMIUM_PATH`); playwright-core downloads no browser. Without one the
 * tests fail, saying how to get it: they never pass by not running.
 */

import { existsSync } from "node:fs";

/** What Debian's and Ubuntu's packages install. */
export const CHROMIUM_CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

/** The flags the tests run Chromium with: headless, no sandbox (CI runs as root), nothing fetched. */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export function chromiumPath(
  env: Record<string, string | undefined> = process.env,
  exists: (path: string) => boolean = existsSync,
): string {
  const configured = env.CHROMIUM_PATH;
  if (configured !== undefined && configured !== "") {
    if (exists(configured)) return configured;
    throw new Error(
      `CHROMIUM_PATH is ${configured}, which does not exist: point it at a Chromium or Chrome executable, or unset it to use Debian's chromium (apt-get install -y chromium)`,
    );
  }
  const found = CHROMIUM_CANDIDATES.find(exists);
  if (found !== undefined) return found;
  throw new Error(
    `The inspector's browser tests need Chromium and found none (looked at ${CHROMIUM_CANDIDATES.join(", ")}). Install it with \`apt-get update && apt-get install -y chromium\` (what .ci/run does), or set CHROMIUM_PATH to a Chromium or Chrome executable.`,
  );
}
