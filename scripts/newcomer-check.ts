/**
 * @module scripts/newcomer-check
 * The README's first command, as a new user runs it on a fresh clone: `pnpm install`, `pnpm start`
 * on a free port, the `curl` line it prints (2xx expected), the inspector at `/inspect` with every
 * file its page references (2xx, each with its content type), then `pnpm demo` on another free port
 * (exit 0 expected); everything it started is stopped, and no process of the clone may outlive it.
 * The commands run with a HOME of their own (empty: no login, config or cache of the machine helps
 * them) and telemetry off. `.ci/run` runs it on its fresh clone before `pnpm test` builds anything,
 * so CI fails when a newcomer's first command does.
 *
 * Usage: node scripts/newcomer-check.ts            on a fresh clone (it refuses a tree with build
 *                                                  outputs, which would hide what a newcomer lacks)
 *        node scripts/newcomer-check.ts --clone    first clones this repository's HEAD (committed
 *                                                  work only) into a temporary directory
 *
 * Only `node:` modules: it runs before `pnpm install`.
 */

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const START_TIMEOUT_MS = 6 * 60_000;
const DEMO_TIMEOUT_MS = 15 * 60_000;
const STOP_GRACE_MS = 10_000;
/** Content types by the extension of a file the inspector's page references. */
const CONTENT_TYPES: Record<string, RegExp> = {
  ".js": /^(text|application)\/javascript\b/,
  ".mjs": /^(text|application)\/javascript\b/,
  ".css": /^text\/css\b/,
  ".svg": /^image\/svg\+xml\b/,
  ".png": /^image\/png\b/,
  ".ico": /^image\/(x-icon|vnd\.microsoft\.icon)\b/,
  ".woff2": /^font\/woff2\b/,
  ".json": /^application\/json\b/,
};

class CheckFailure extends Error {}

function log(line: string): void {
  console.log(`[newcomer] ${line}`);
}

/** A process group this check started (`detached`), with what it printed. */
interface Started {
  name: string;
  child: ChildProcess;
  output: string[];
  exit: Promise<number | null>;
}

const running = new Set<Started>();

function start(name: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Started {
  const child = spawn("pnpm", args, {
    cwd,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  let pending = "";
  const onData = (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    output.push(...lines);
  };
  child.stdout?.on("data", onData);
  child.stderr?.on("data", onData);
  const exit = new Promise<number | null>((done) => {
    child.on("error", (error) => {
      output.push(`could not run pnpm: ${error.message}`);
      done(null);
    });
    child.on("exit", (code) => done(code));
  });
  const started = { name, child, output, exit };
  running.add(started);
  return started;
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stops the whole group (pnpm, node, wrangler, workerd): SIGTERM, then SIGKILL after a grace. */
async function stop(started: Started): Promise<"stopped" | "killed"> {
  running.delete(started);
  const pgid = started.child.pid;
  if (pgid === undefined || !groupAlive(pgid)) return "stopped";
  process.kill(-pgid, "SIGTERM");
  const deadline = Date.now() + STOP_GRACE_MS;
  while (Date.now() < deadline) {
    if (!groupAlive(pgid)) return "stopped";
    await sleep(200);
  }
  process.kill(-pgid, "SIGKILL");
  return "killed";
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

function tail(started: Started, lines = 40): string {
  return started.output
    .slice(-lines)
    .map((line) => `    ${line}`)
    .join("\n");
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  await new Promise((done) => server.close(done));
  if (address === null || typeof address === "string") throw new Error("no port from the OS");
  return address.port;
}

/** A newcomer's shell: their PATH, a HOME of their own, nothing of this machine's tools' state. */
function newcomerEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    // Left out: what a parent pnpm/npm exported, XDG dirs outside HOME, a Cloudflare login.
    if (/^(npm_|PNPM_|XDG_|CLOUDFLARE_)/i.test(name)) continue;
    env[name] = value;
  }
  return {
    ...env,
    HOME: home,
    WRANGLER_SEND_METRICS: "false",
    DO_NOT_TRACK: "1",
    TURBO_TELEMETRY_DISABLED: "1",
    ASTRO_TELEMETRY_DISABLED: "1",
    NO_COLOR: "1",
  };
}

/** Build outputs and local state a fresh clone does not have (node_modules and .tools/ aside). */
function notFresh(dir: string): string[] {
  const status = spawnSync("git", ["status", "--porcelain", "-z", "--ignored"], {
    cwd: dir,
    encoding: "utf8",
  });
  if (status.status !== 0) throw new CheckFailure(`git status failed in ${dir}: ${status.stderr}`);
  return status.stdout
    .split("\0")
    .filter((line) => line.startsWith("!! "))
    .map((line) => line.slice(3))
    .filter((path) => !/(^|\/)node_modules\/$/.test(path) && path !== ".tools/");
}

/** The pnpm store an existing node_modules was installed from (so the install reuses it). */
function installedStore(dir: string): string | undefined {
  const modules = join(dir, "node_modules", ".modules.yaml");
  if (!existsSync(modules)) return undefined;
  try {
    // pnpm writes this YAML file in YAML's JSON form; if it ever does not, the install downloads.
    const { storeDir } = JSON.parse(readFileSync(modules, "utf8")) as { storeDir?: unknown };
    return typeof storeDir === "string" ? storeDir : undefined;
  } catch {
    return undefined;
  }
}

/** Processes whose command line or working directory is inside `dir` (Linux; else none). */
function processesIn(dir: string): Map<number, string> {
  const found = new Map<number, string>();
  if (!existsSync("/proc/self")) return found;
  const prefix = `${dir}/`;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      let cwd = "";
      try {
        cwd = `${readlinkSync(`/proc/${entry}/cwd`)}/`;
      } catch {
        // Another user's process: its command line is enough.
      }
      if (command.includes(prefix) || cwd.startsWith(prefix)) found.set(Number(entry), command);
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** This process and its ancestors (Linux), which run in the clone without being strays. */
function selfAndAncestors(): Set<number> {
  const pids = new Set<number>();
  let pid = process.pid;
  while (pid > 1 && !pids.has(pid)) {
    pids.add(pid);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      pid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      break;
    }
  }
  return pids;
}

async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  const began = Date.now();
  log(`${name} …`);
  const result = await run();
  log(`${name}: ok (${((Date.now() - began) / 1000).toFixed(0)} s)`);
  return result;
}

async function pnpmInstall(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const store = installedStore(dir);
  // Reusing the store node_modules came from (CI installed before) only spares a second download;
  // without node_modules, the install fills the empty HOME's store as a newcomer's does.
  const installEnv = store === undefined ? env : { ...env, npm_config_store_dir: store };
  const install = start("pnpm install", ["install"], dir, installEnv);
  const code = await install.exit;
  running.delete(install);
  if (code !== 0) throw new CheckFailure(`pnpm install exited ${code}:\n${tail(install)}`);
}

/** What `pnpm start` printed for a newcomer to use. */
interface Printed {
  curl: string;
  inspector: string;
}

function readPrinted(output: readonly string[]): Printed | undefined {
  const curl = output.map((line) => /\bTry: (curl .+)$/.exec(line)?.[1]).find(Boolean);
  const inspector = output.map((line) => /\bInspector: +(\S+)/.exec(line)?.[1]).find(Boolean);
  return curl === undefined || inspector === undefined ? undefined : { curl, inspector };
}

/** `pnpm start --port N` until the service answers there; returns it running and what it printed. */
async function pnpmStart(
  dir: string,
  env: NodeJS.ProcessEnv,
  port: number,
): Promise<{ service: Started; printed: Printed }> {
  const service = start("pnpm start", ["start", "--port", String(port)], dir, env);
  let exited = false;
  void service.exit.then(() => {
    exited = true;
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (true) {
    if (exited) throw new CheckFailure(`pnpm start exited before it answered:\n${tail(service)}`);
    if (Date.now() > deadline) {
      throw new CheckFailure(
        `pnpm start did not answer within ${START_TIMEOUT_MS / 1000} s:\n${tail(service)}`,
      );
    }
    if (await answers(`http://localhost:${port}/healthz`)) {
      const lines = readPrinted(service.output);
      if (lines === undefined) {
        throw new CheckFailure(
          `pnpm start answers, but printed no "Try: curl …" or no "Inspector: <url>" line:\n${tail(service)}`,
        );
      }
      return { service, printed: lines };
    }
    await sleep(500);
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    return response.ok;
  } catch {
    return false;
  }
}

/** The printed line, run as printed by a shell; curl's `-w` appended reports the status. */
function runCurl(curl: string, env: NodeJS.ProcessEnv): void {
  const result = spawnSync("bash", ["-c", `${curl} -w '\\n%{http_code}'`], {
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  const lines = result.stdout.trimEnd().split("\n");
  const status = Number(lines.pop());
  const body = lines.join("\n");
  if (result.status !== 0 || !(status >= 200 && status < 300)) {
    throw new CheckFailure(
      `the curl line pnpm start printed failed (exit ${result.status}, HTTP ${status}):\n    ${curl}\n    ${body.slice(0, 500)}${result.stderr}`,
    );
  }
  log(`  HTTP ${status}: ${body.slice(0, 160)}`);
}

async function inspector(pageUrl: string): Promise<void> {
  const page = await fetch(pageUrl);
  const html = await page.text();
  const pageType = page.headers.get("content-type") ?? "";
  if (page.status !== 200 || !pageType.startsWith("text/html")) {
    throw new CheckFailure(
      `GET ${pageUrl} answered ${page.status} ${pageType}: ${html.slice(0, 300)}`,
    );
  }
  const refs = [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? "");
  if (refs.length === 0)
    throw new CheckFailure(`the page at /inspect references no file:\n${html}`);
  for (const ref of refs) {
    const url = new URL(ref, page.url);
    const extension = /\.[a-z0-9]+$/i.exec(url.pathname)?.[0] ?? "";
    const expected = CONTENT_TYPES[extension];
    if (expected === undefined) {
      throw new CheckFailure(
        `/inspect references ${ref}: add its extension's content type to CONTENT_TYPES in scripts/newcomer-check.ts`,
      );
    }
    const response = await fetch(url);
    const type = response.headers.get("content-type") ?? "";
    const bytes = (await response.arrayBuffer()).byteLength;
    if (!response.ok || !expected.test(type) || bytes === 0) {
      throw new CheckFailure(
        `${url.pathname} (referenced by /inspect) answered ${response.status} ${type}, ${bytes} bytes`,
      );
    }
    log(`  ${url.pathname}: ${response.status} ${type}, ${bytes} bytes`);
  }
}

async function pnpmDemo(dir: string, env: NodeJS.ProcessEnv, port: number): Promise<void> {
  const demo = start("pnpm demo", ["demo", "--port", String(port)], dir, env);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((done) => {
    timer = setTimeout(() => done("timeout"), DEMO_TIMEOUT_MS);
  });
  // The timer is cleared, or it would keep this process alive for the whole timeout.
  const code = await Promise.race([demo.exit, timeout]).finally(() => clearTimeout(timer));
  if (code === "timeout") {
    await stop(demo);
    throw new CheckFailure(`pnpm demo ran over ${DEMO_TIMEOUT_MS / 60_000} min:\n${tail(demo)}`);
  }
  await stop(demo);
  if (code !== 0) throw new CheckFailure(`pnpm demo exited ${code}:\n${tail(demo)}`);
  for (const line of demo.output.filter((text) => text.trim() !== "").slice(-6)) log(`  ${line}`);
}

/** Fails on any process still running in the clone that was not there before; kills it. */
function noStrays(dir: string, before: Map<number, string>): void {
  const own = selfAndAncestors();
  const strays = [...processesIn(dir)].filter(([pid]) => !before.has(pid) && !own.has(pid));
  for (const [pid] of strays) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Gone meanwhile.
    }
  }
  if (strays.length > 0) {
    throw new CheckFailure(
      `processes of the clone outlived their command (killed now):\n${strays.map(([pid, command]) => `    ${pid} ${command.slice(0, 200)}`).join("\n")}`,
    );
  }
}

/** Set once the tree is known fresh: what is left in it afterwards is the check's to remove. */
let checkedTree: string | undefined;

/**
 * Removes what the commands left in a tree that was fresh (builds, `.dev.vars`, wrangler's state, the
 * demo's report; node_modules stays), so `pnpm test` after it in CI starts from the clone as it was.
 */
function removeLeftovers(): void {
  if (checkedTree === undefined) return;
  const leftovers = notFresh(checkedTree);
  for (const path of leftovers) rmSync(join(checkedTree, path), { recursive: true, force: true });
  if (leftovers.length > 0) log(`removed what the commands left: ${leftovers.join(", ")}`);
}

async function check(dir: string, home: string): Promise<void> {
  const leftovers = notFresh(dir);
  if (leftovers.length > 0) {
    throw new CheckFailure(
      `${dir} is not a fresh clone (${leftovers.slice(0, 8).join(", ")}): what a newcomer lacks would go unnoticed. Run it with --clone.`,
    );
  }
  checkedTree = dir;
  const env = newcomerEnv(home);
  const before = processesIn(dir);
  log(`in ${dir}, HOME=${home}`);

  await step("pnpm install", () => pnpmInstall(dir, env));

  const startPort = await freePort();
  const { service, printed } = await step(`pnpm start --port ${startPort}`, () =>
    pnpmStart(dir, env, startPort),
  );
  await step("the curl line pnpm start printed", async () => runCurl(printed.curl, env));
  await step(`the inspector it printed, ${printed.inspector}`, () => inspector(printed.inspector));
  if ((await stop(service)) === "killed") {
    log(`pnpm start was still running ${STOP_GRACE_MS / 1000} s after SIGTERM: killed`);
  }
  noStrays(dir, before);

  const demoPort = await freePort();
  await step(`pnpm demo --port ${demoPort}`, () => pnpmDemo(dir, env, demoPort));
  noStrays(dir, before);
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { clone: { type: "boolean", default: false } } });
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const scratch = mkdtempSync(join(tmpdir(), "condense-newcomer-"));
  const home = join(scratch, "home");
  let dir = repo;
  const cleanUp = async () => {
    for (const started of [...running]) await stop(started);
    removeLeftovers();
    rmSync(scratch, { recursive: true, force: true });
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      void cleanUp().then(() => process.exit(130));
    });
  }
  try {
    mkdirSync(home);
    if (values.clone) {
      dir = join(scratch, "condense");
      const cloned = spawnSync("git", ["clone", "-q", repo, dir], { stdio: "inherit" });
      if (cloned.status !== 0) throw new CheckFailure(`git clone ${repo} failed`);
    }
    const began = Date.now();
    await check(dir, home);
    log(`passed in ${((Date.now() - began) / 1000).toFixed(0)} s`);
    return 0;
  } catch (error) {
    if (!(error instanceof CheckFailure)) throw error;
    log(`FAILED: ${error.message}`);
    return 1;
  } finally {
    await cleanUp();
  }
}

// Everything it started is stopped by now; nothing left should keep it waiting.
process.exit(await main());
