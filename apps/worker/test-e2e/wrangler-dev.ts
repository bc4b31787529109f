/**
 * @module test-e2e/wrangler-dev
 * Starts the Worker under `wrangler dev` for the browser tests: on a free
 * loopback port, with storage in a fresh temporary directory and the given
 * vars (API keys included) in an env file there rather than on the command
 * line; stops the whole process group afterwards. `wrangler dev` runs the
 * inspector's build first (the custom build in wrangler.jsonc).
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface DevServer {
  baseUrl: string;
  /** The last lines wrangler printed (for failure messages). */
  output(): string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no free port");
  return address.port;
}

async function healthy(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(1_000) });
    return response.ok;
  } catch {
    return false;
  }
}

export async function startWranglerDev(options: {
  workerDir: string;
  vars: Record<string, string>;
  timeoutMs?: number;
  /** A wrangler configuration other than the Worker's own `wrangler.jsonc`, in `workerDir`. */
  config?: string;
}): Promise<DevServer> {
  const port = await freePort();
  const state = mkdtempSync(join(tmpdir(), "condense-e2e-"));
  const envFile = join(state, "test.env");
  writeFileSync(
    envFile,
    Object.entries(options.vars)
      .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
      .join("\n"),
    { mode: 0o600 },
  );
  const child: ChildProcess = spawn(
    join(options.workerDir, "node_modules", ".bin", "wrangler"),
    [
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--persist-to",
      join(state, "state"),
      "--env-file",
      envFile,
      "--show-interactive-dev-session=false",
      ...(options.config !== undefined ? ["--config", options.config] : []),
    ],
    {
      cwd: options.workerDir,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
    },
  );
  const lines: string[] = [];
  const collect = (chunk: Buffer) => {
    lines.push(...chunk.toString("utf8").split("\n"));
    if (lines.length > 300) lines.splice(0, lines.length - 300);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  let exited = false;
  // Should the test process end without stopping it, the server goes with it.
  const killOnExit = () => {
    if (!exited && child.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  };
  process.once("exit", killOnExit);
  child.on("exit", () => {
    exited = true;
    process.removeListener("exit", killOnExit);
  });

  const stop = async () => {
    if (!exited && child.pid !== undefined) {
      const pid = child.pid;
      const signal = (name: NodeJS.Signals) => {
        try {
          // The group: wrangler and the workerd it started.
          process.kill(-pid, name);
        } catch {
          // Already gone.
        }
      };
      signal("SIGTERM");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          signal("SIGKILL");
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
  const output = () => lines.slice(-40).join("\n");
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  while (!(await healthy(baseUrl))) {
    if (exited || Date.now() > deadline) {
      const last = output();
      await stop();
      throw new Error(
        `wrangler dev did not come up on ${baseUrl}${exited ? " (it exited)" : ""}:\n${last}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { baseUrl, output, stop };
}
