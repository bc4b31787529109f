/**
 * @module harness/compact-runs
 * The agents compacting on their own, mid-task (`test/agent-compact.test.ts`):
 * setups derived from the suite's (`harness/agent-setups`), run by the same
 * `runTask`.
 * - Claude Code in three headless runs of one conversation: the task stopped
 *   after a few turns (`--max-turns`), its own `/compact` (`-p "/compact"
 *   --continue`), then the task finished (`--continue`). The three run one
 *   after the other under one launch (a small Node script), so the harness
 *   sees one run.
 * - Codex with its own automatic compaction at a limit below the gateway's
 *   window (`model_auto_compact_token_limit`): `codex exec` compacts by itself
 *   mid-task, as its `/compact` does.
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isCompactionRequest } from "../model/scripted-model.ts";
import type { RecordedCall } from "../upstream/scripted-upstream.ts";
import { type AgentSetup, claudeCode, codex, type Launch } from "./agent-setups.ts";
import { PROTOCOLS } from "./task-run.ts";

/** Claude Code's turns before its `/compact`. */
export const TURNS_BEFORE_COMPACT = 16;
/** Where Codex compacts by itself, in its own count of the context's tokens. */
export const CODEX_AUTO_COMPACT_TOKENS = 20_000;
/** What the user says after `/compact`. */
const GO_ON = "Go on with the task from where you left off.";

/** Runs each launch in turn, in the same environment; exits with the last one's status. */
const PHASES_SCRIPT = `
const { spawnSync } = require("node:child_process");
const phases = JSON.parse(process.argv[1]);
let status = 0;
for (const phase of phases) {
  const run = spawnSync(phase.command, phase.args, { stdio: "inherit", env: process.env });
  status = run.status ?? 1;
}
process.exit(status);
`;

function inPhases(phases: readonly Launch[], env: Record<string, string>): Launch {
  return {
    command: process.execPath,
    args: [
      "-e",
      PHASES_SCRIPT,
      JSON.stringify(phases.map(({ command, args }) => ({ command, args }))),
    ],
    env,
  };
}

/** Claude Code's arguments with the prompt and the turn limit replaced, `--continue` added. */
function claudeArgs(args: readonly string[], prompt: string, maxTurns: number, resume: boolean) {
  const out = [...args];
  out[out.indexOf("-p") + 1] = prompt;
  out[out.indexOf("--max-turns") + 1] = String(maxTurns);
  return resume ? [...out, "--continue"] : out;
}

export const claudeCodeCompacting: AgentSetup = {
  ...claudeCode,
  name: "claude-code-compact",
  launch(options) {
    const launch = claudeCode.launch(options);
    const phase = (prompt: string, maxTurns: number, resume: boolean): Launch => ({
      ...launch,
      args: claudeArgs(launch.args, prompt, maxTurns, resume),
    });
    return inPhases(
      [
        phase(options.prompt, TURNS_BEFORE_COMPACT, false),
        phase("/compact", 1, true),
        phase(GO_ON, 100, true),
      ],
      launch.env,
    );
  },
};

export const codexCompacting: AgentSetup = {
  ...codex,
  name: "codex-compact",
  launch(options) {
    const launch = codex.launch(options);
    // Top-level keys go before the config's first table.
    const config = join(options.home, ".codex", "config.toml");
    writeFileSync(
      config,
      `model_auto_compact_token_limit = ${CODEX_AUTO_COMPACT_TOKENS}\n${readFileSync(config, "utf8")}`,
    );
    return launch;
  },
};

/**
 * The requests of a run that are the agent's own compaction: its summarization prompt
 * (`isCompactionRequest`), or a call of `/responses/compact`.
 */
export function agentCompactions(setup: AgentSetup, calls: readonly RecordedCall[]): number {
  const protocol = PROTOCOLS[setup.protocol];
  return calls.filter(
    (call) =>
      call.path.includes("/responses/compact") ||
      (call.body !== null && isCompactionRequest(protocol.read(call.body))),
  ).length;
}
