/**
 * @module demo/service
 * Finds the Condense service the demo talks to, or starts one. If something
 * answers `/healthz` at the address, it is used with `CONDENSE_API_KEY` (or
 * the key `pnpm start` keeps in apps/worker/.dev.vars). Otherwise `wrangler
 * dev` is started in apps/worker with a random key that exists only for this
 * run, storage in a temporary directory, and the summarizer settings of the
 * environment; it is stopped (its whole process group) when the demo ends.
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Service {
  baseUrl: string;
  apiKey: string;
  /** Whether the demo started it (and will stop it). */
  started: boolean;
  /** The summarizer the service was started with, when the demo started it. */
  summarizer: "llm" | "deterministic" | "unknown";
  stop(): Promise<void>;
}

async function healthy(baseUrl: string, timeoutMs = 1_000): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    return response.ok && ((await response.json()) as { ok?: unknown }).ok === true;
  } catch {
    return false;
  }
}

function devVarsKey(workerDir: string): string | undefined {
  const path = join(workerDir, ".dev.vars");
  if (!existsSync(path)) return undefined;
  const line = /^API_KEYS\s*=\s*(.*)$/m
    .exec(readFileSync(path, "utf8"))?.[1]
    ?.trim()
    .replace(/^["']|["']$/g, "");
  const first = line?.split(/[,\n]/)[0]?.trim();
  const colon = first?.indexOf(":") ?? -1;
  return first !== undefined && colon > 0 ? first.slice(colon + 1) : undefined;
}

/** Builds @condense/core when its dist is missing: the Worker bundles it from there. */
export function ensureCoreBuilt(coreDir: string, log: (line: string) => void): void {
  if (existsSync(join(coreDir, "dist", "index.js"))) return;
  log("Building @condense/core (first run) …");
  const result = spawnSync("pnpm", ["run", "build"], { cwd: coreDir, stdio: "inherit" });
  if (result.status !== 0)
    throw new Error("building @condense/core failed; run `pnpm build` at the repository root");
}

/** Starts `wrangler dev` in `workerDir` on `port` with a fresh key and storage (see the module comment). */
export async function startWrangler(
  workerDir: string,
  port: number,
  log: (line: string) => void,
): Promise<Service> {
  const apiKey = `demo-${randomBytes(18).toString("hex")}`;
  const state = mkdtempSync(join(tmpdir(), "condense-demo-"));
  // Settings go through an env file in the private temporary directory, not the command line,
  // so the key and any summarizer key never show in the process list.
  const envFile = join(state, "demo.env");
  const vars: Record<string, string> = { API_KEYS: `demo:${apiKey}` };
  for (const name of ["SUMMARIZER_BASE_URL", "SUMMARIZER_API_KEY", "SUMMARIZER_MODEL"]) {
    const value = process.env[name];
    if (value !== undefined && value !== "") vars[name] = value;
  }
  writeFileSync(
    envFile,
    Object.entries(vars)
      .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
      .join("\n"),
    { mode: 0o600 },
  );
  const wrangler = join(workerDir, "node_modules", ".bin", "wrangler");
  const child: ChildProcess = spawn(
    wrangler,
    [
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--persist-to",
      join(state, "state"),
      // Replaces apps/worker/.dev.vars (which `pnpm start` may have written) for this run.
      "--env-file",
      envFile,
      "--show-interactive-dev-session=false",
    ],
    {
      cwd: workerDir,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    },
  );
  const output: string[] = [];
  let pending = "";
  const onData = (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      output.push(line);
      if (output.length > 200) output.shift();
    }
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  let exited = false;
  child.on("exit", () => {
    exited = true;
  });

  const stop = async () => {
    if (!exited && child.pid !== undefined) {
      try {
        // The whole group: wrangler and the workerd processes it started.
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // Already gone.
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          try {
            if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
          } catch {
            // Already gone.
          }
          resolve();
        }, 5_000);
        child.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    rmSync(state, { recursive: true, force: true });
  };

  const baseUrl = `http://127.0.0.1:${port}`;
  log(`Starting the service (wrangler dev on ${baseUrl}) …`);
  const deadline = Date.now() + 90_000;
  while (!(await healthy(baseUrl))) {
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(
        `wrangler dev did not come up on ${baseUrl}${exited ? " (it exited)" : ""}. Its last output:\n${output.slice(-25).join("\n")}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    baseUrl,
    apiKey,
    started: true,
    // The same rule as the Worker's: either setting switches the LLM summarizer on.
    summarizer:
      vars.SUMMARIZER_BASE_URL !== undefined || vars.SUMMARIZER_API_KEY !== undefined
        ? "llm"
        : "deterministic",
    stop,
  };
}

/** The service at `port` if one answers, else a fresh `wrangler dev`. */
export async function ensureService(options: {
  port: number;
  workerDir: string;
  log: (line: string) => void;
}): Promise<Service> {
  const baseUrl = `http://127.0.0.1:${options.port}`;
  if (await healthy(baseUrl)) {
    const apiKey = process.env.CONDENSE_API_KEY ?? devVarsKey(options.workerDir);
    if (apiKey === undefined) {
      throw new Error(
        `a service already answers on ${baseUrl}, but there is no key for it: set CONDENSE_API_KEY (the key \`pnpm start\` printed), or stop that service and run the demo again to let it start its own`,
      );
    }
    options.log(`Using the service already running on ${baseUrl}.`);
    return {
      baseUrl,
      apiKey,
      started: false,
      summarizer: "unknown",
      stop: async () => {},
    };
  }
  return startWrangler(options.workerDir, options.port, options.log);
}
