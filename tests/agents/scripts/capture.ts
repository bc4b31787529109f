/**
 * Runs agents straight at the scripted upstream (no gateway) and saves what
 * each sent — every request's headers and body, and the CLI's own output —
 * for fixtures and for reading: `node scripts/capture.ts <dir> [agent…]`.
 */

import { join } from "node:path";
import { ensureAgentClis } from "../src/harness/agent-clis.ts";
import { AGENT_SETUPS } from "../src/harness/agent-setups.ts";
import { runTask } from "../src/harness/task-run.ts";
import { startScriptedUpstream } from "../src/upstream/scripted-upstream.ts";

const [dir = "captures", ...only] = process.argv.slice(2);
ensureAgentClis();
const upstream = await startScriptedUpstream();
try {
  for (const setup of AGENT_SETUPS) {
    if (only.length > 0 && !only.includes(setup.name)) continue;
    const report = await runTask({
      setup,
      upstream,
      name: `${setup.name}-direct`,
      limit: 400_000,
      timeoutMs: 300_000,
      saveTo: join(dir, setup.name),
    });
    const { tail, ...figures } = report;
    console.log(JSON.stringify(figures));
    if (!report.finished) console.log(tail);
  }
} finally {
  await upstream.close();
}
