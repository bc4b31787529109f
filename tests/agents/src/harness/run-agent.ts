/**
 * @module harness/run-agent
 * One run of a real agent CLI: a fresh HOME and workspace in a temporary
 * directory (`makeRunDirs`), the CLI started headless there with its setup
 * (`harness/agent-setups`), and its outcome once it exits — or is stopped,
 * with its whole process group, when it outlives the deadline.
 */

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentSetup } from "./agent-setups.ts";

/** A run's temporary directories: the CLI's HOME and its workspace, under one root. */
export interface RunDirs {
  root: string;
  home: string;
  workspace: string;
}

export function makeRunDirs(name: string): RunDirs {
  const root = mkdtempSync(join(tmpdir(), `agents-e2e-${name}-`));
  const workspace = join(root, "workspace");
  mkdirSync(workspace);
  return { root, home: join(root, "home"), workspace };
}

export interface AgentRunOptions {
  setup: AgentSetup;
  dirs: RunDirs;
  /** Where the agent is pointed (already in the form its setup expects). */
  baseUrl: string;
  apiKey: string;
  headers: Record<string, string>;
  prompt: string;
  timeoutMs: number;
}

export interface AgentOutcome {
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** The CLI's output (its JSON event lines), for the report and failure messages. */
  stdout: string;
  stderr: string;
}

export async function runAgent(options: AgentRunOptions): Promise<AgentOutcome> {
  const { home, workspace } = options.dirs;
  const launch = options.setup.launch({
    home,
    workspace,
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    headers: options.headers,
    prompt: options.prompt,
  });
  const started = Date.now();
  const child = spawn(launch.command, launch.args, {
    cwd: workspace,
    env: launch.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (part: Buffer) => {
    stdout += part.toString("utf8");
  });
  child.stderr.on("data", (part: Buffer) => {
    stderr += part.toString("utf8");
  });
  const killGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  process.once("exit", () => killGroup("SIGKILL"));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup("SIGTERM");
    setTimeout(() => killGroup("SIGKILL"), 3_000).unref();
  }, options.timeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => {
    child.once("error", (error) => {
      stderr += `\n${String(error)}`;
      resolve(null);
    });
    child.once("close", (code) => resolve(code));
  });
  clearTimeout(timer);
  // Tools the agent started in the background go with it.
  killGroup("SIGKILL");
  return {
    exitCode,
    timedOut,
    durationMs: Date.now() - started,
    stdout,
    stderr,
  };
}
