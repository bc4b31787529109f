/**
 * @module scripts/troubleshooting
 * The troubleshooting page's failures: what an agent printed, as a Worker test recorded it
 * (`troubleshooting-examples.json`, from `apps/worker/test/api/troubleshooting-examples.test.ts`),
 * each as a block the template places by its id (`{{provider-key-read-as-condense-key}}`).
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";

interface Failure {
  id: string;
  status: number;
  message: string;
  code: string | null;
  headers: Record<string, string>;
}

export const TROUBLESHOOTING_EXAMPLES = "troubleshooting-examples.json";

function block(failure: Failure): string {
  const lines = [`HTTP ${failure.status}${failure.code === null ? "" : ` (${failure.code})`}`];
  for (const [name, value] of Object.entries(failure.headers)) lines.push(`${name}: ${value}`);
  if (failure.message !== "") lines.push("", failure.message);
  return `\`\`\`text\n${lines.join("\n")}\n\`\`\``;
}

/** Each recorded failure's block, by its id. */
export function troubleshootingParts(docsRoot: string): Record<string, string> {
  const failures = JSON.parse(
    readFileSync(join(docsRoot, TROUBLESHOOTING_EXAMPLES), "utf8"),
  ) as Failure[];
  return Object.fromEntries(failures.map((failure) => [failure.id, block(failure)]));
}
