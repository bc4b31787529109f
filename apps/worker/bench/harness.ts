/**
 * @module bench/harness
 * What the bench's sections share: `wrangler dev` started on a free loopback
 * port with the bench's key, percentiles and their printing, and a long agent
 * session to feed the Worker.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ChatMessage, countMessageTokens } from "@condense/core";
import { TRANSCRIPTS_DIR } from "@condense/test-fixtures/transcripts";

/** The Worker's folder (apps/worker). */
export const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The repository's root, two folders above the Worker's. */
export const repositoryRoot = join(root, "../..");
/** Messages per append while a session is built. */
export const APPEND_BATCH = 150;
/** The Condense key every bench Worker accepts. */
export const KEY = "bench-key";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The Worker's wrangler configuration in `workerDir` without the per-user RATE_LIMITER binding (a
 * bench sends far more than a user may: `pnpm bench search` met its 429 after 600 requests in a
 * minute), written beside the original so that its relative paths hold, under a name of its own
 * (git-ignored) for each Worker started. The caller removes it.
 *
 * Unbound rather than raised: deployed, the binding's `limit()` is answered from counters cached on
 * the Worker's machine (Cloudflare's Rate Limiting docs), while `wrangler dev` emulates it with a
 * Durable Object written to disk on every request — 1.3–5.3 ms of CPU a request here, more than the
 * search it stands in front of. `BENCH_RATE_LIMITER=bound` keeps it, with the limit out of reach.
 */
export function unlimitedConfig(workerDir = root): string {
  const configured = readFileSync(join(workerDir, "wrangler.jsonc"), "utf8");
  const file = join(workerDir, `wrangler.bench-${process.pid}-${++configs}.jsonc`);
  writeFileSync(file, withoutRateLimit(configured));
  return file;
}

/** A wrangler configuration's text without the RATE_LIMITER binding (see {@link unlimitedConfig}). */
export function withoutRateLimit(configured: string): string {
  return process.env.BENCH_RATE_LIMITER === "bound"
    ? configured.replace(/("simple":\s*\{\s*"limit":\s*)\d+/, "$11000000000")
    : configured.replace(/"ratelimits":\s*\[[^\]]*\],?/, "");
}
let configs = 0;

/**
 * `wrangler dev` with these vars (and the bench's key), its state kept in `dir` (a new temporary one
 * by default), so a second Worker started on the same `dir` finds the sessions of the first; the
 * Worker of `config` (a wrangler config file) rather than Condense's (with no rate limit, see
 * {@link unlimitedConfig}) when given; the Worker of another checkout when `workerDir` (its
 * apps/worker) is given (the comparison mode's base).
 */
export async function startWorker(
  extraVars: Record<string, string>,
  dir = mkdtempSync(join(tmpdir(), "condense-bench-")),
  config?: string,
  workerDir = root,
): Promise<{ base: string; child: ChildProcess; dir: string; inspectorPort: number }> {
  const port = await freePort();
  const vars = { API_KEYS: `bench:${KEY}`, ...extraVars };
  // An inspector port of its own: two Workers started at once would both ask for the default one.
  const inspectorPort = await freePort();
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", dir];
  args.push("--inspector-port", String(inspectorPort));
  const written = config === undefined ? unlimitedConfig(workerDir) : undefined;
  // Removed when wrangler exits, or with this process when it exits first (`process.exit` after
  // a kill does not wait for the child's exit event).
  const removeWritten = () => {
    if (written !== undefined) rmSync(written, { force: true });
  };
  process.once("exit", removeWritten);
  args.push("--config", config ?? written ?? "");
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const child = spawn(join(workerDir, "node_modules/.bin/wrangler"), args, {
    cwd: workerDir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  // What it last printed, for the error should it not start (the pipes are read to their end).
  let output = "";
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString("utf8")).slice(-4_000);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let exited = false;
  child.once("exit", () => {
    exited = true;
    removeWritten();
  });
  const base = `http://127.0.0.1:${port}`;
  // Three minutes: on a busy machine the inspector's build alone, before the Worker's, takes one.
  for (let i = 0; i < 720 && !exited; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return { base, child, dir, inspectorPort };
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill("SIGTERM");
  throw new Error(
    `wrangler dev ${exited ? "exited" : "did not start within 180 s"}; it printed:\n${output}`,
  );
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export const ms = (value: number) => `${value.toFixed(1)} ms`;

/** The processes under `pid`, itself included (Linux /proc). */
function processTree(pid: number): number[] {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").split(" ").filter(Boolean),
  );
  return [pid, ...children.flatMap((child) => processTree(Number(child)))];
}

/**
 * CPU milliseconds (user and system) `pid` and its descendants have used: the work done, which a
 * busy machine does not inflate as it inflates wall time. NaN where /proc cannot tell.
 */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    let ticks = 0;
    for (const id of processTree(pid)) {
      const stat = readFileSync(`/proc/${id}/stat`, "utf8");
      // Fields after the command's closing parenthesis start at the state (field 3); utime is 14.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    }
    // Linux counts in clock ticks of 1/100 s (USER_HZ).
    return ticks * 10;
  } catch {
    return Number.NaN;
  }
}

/** A latency's median and tail, in milliseconds. */
export interface Percentiles {
  p50: number;
  p99: number;
}

export const percentiles = (values: number[]): Percentiles => ({
  p50: percentile(values, 50),
  p99: percentile(values, 99),
});

/** `agentSession`'s length for the issue's forced-compaction figure: about 118.6k tokens for gpt-4o, the issue's 118,893 within a step (issue 29). */
export const ISSUE_SESSION_CHARS = 314_000;

/**
 * An agent session of about `chars` characters of tool output and notes (nothing is tokenized while
 * it is built; the default, ~198k tokens for gpt-4o, was "200k" by a chars/4 estimate): tool steps
 * with long, distinct outputs, and prose turns the summary has to cover. `salt` makes the outputs of
 * one session differ from another's.
 */
export function agentSession(salt = 0, chars = 530_000): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Fix the build of https://github.com/example/project." },
  ];
  let written = 0;
  for (let i = 1; written < chars && i < 10_000; i++) {
    const output = Array.from(
      { length: 60 },
      (_, line) =>
        `export const v${i}_${line} = "${(i * 7919 + line + salt * 104_729).toString(36)}";`,
    ).join("\n");
    const note = `Step ${i}: ${"checked the module and its tests, the failure is elsewhere; ".repeat(4)}`;
    messages.push({
      role: "assistant",
      content: note,
      tool_calls: [
        {
          id: `call_${i}`,
          type: "function",
          function: { name: "read_file", arguments: `{"path":"src/file_${i}.ts"}` },
        },
      ],
    });
    messages.push({ role: "tool", tool_call_id: `call_${i}`, content: output });
    messages.push({ role: "user", content: `Good, go on with file ${i + 1}.` });
    written += output.length + note.length + 40;
  }
  return messages;
}

export async function api(
  base: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

/**
 * A request that reaches a session's object and does almost nothing there, the peer of a search or
 * an append to the same object: `GET /side-requests?limit=1` goes through what every session route
 * goes through (authentication, routing, the query's validation, the stub's round trip, the session
 * row read) and then reads one row by primary key of a table the benches' sessions leave empty
 * (they make no gateway requests), answering some 60 bytes. It stays that size as the session
 * grows, unlike `GET /compactions`, whose bill and cost series (one point per billed turn) made the
 * peer of a 314k-token session 2.6 ms slower at p50 and 9 ms at p99 than a one-message session's.
 */
export const DO_NOTHING = {
  label: "GET /side-requests?limit=1",
  path: (session: string) => `/v1/sessions/${session}/side-requests?limit=1`,
};

/** The corpus transcripts (../shared/corpus/normalized when present, else the engine's fixtures). */
export function corpusTranscripts(): { source: string; transcripts: ChatMessage[][] } {
  const shared = join(root, "../../../shared/corpus/normalized");
  const folder = existsSync(shared) ? shared : TRANSCRIPTS_DIR;
  const transcripts = readdirSync(folder)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map(
      (file) =>
        (JSON.parse(readFileSync(join(folder, file), "utf8")) as { messages: ChatMessage[] })
          .messages,
    );
  return { source: folder, transcripts };
}

/** Messages of whole transcripts, in order, until they hold `tokens` (exact count for gpt-4o). */
export function corpusSession(transcripts: ChatMessage[][], tokens: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let round = 0; countMessageTokens(messages, "gpt-4o") < tokens && round < 20; round++) {
    for (const transcript of transcripts) {
      messages.push(...transcript);
      if (countMessageTokens(messages, "gpt-4o") >= tokens) break;
    }
  }
  return messages;
}

/** Appends `messages` in requests of at most ~1 MB and `APPEND_BATCH` messages. */
export async function appendAll(
  base: string,
  session: string,
  messages: ChatMessage[],
): Promise<void> {
  let batch: ChatMessage[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await api(base, "POST", `/v1/sessions/${session}/messages`, {
      model: "gpt-4o",
      messages: batch,
    });
    batch = [];
    bytes = 0;
  };
  for (const message of messages) {
    const size = JSON.stringify(message).length;
    if (batch.length >= APPEND_BATCH || (bytes + size > 1_000_000 && batch.length > 0))
      await flush();
    batch.push(message);
    bytes += size;
  }
  await flush();
}

/** Queries of 1-3 words drawn (deterministically) from the session's text, and some tool-call ids. */
export function searchQueries(messages: ChatMessage[], count: number): string[] {
  const words: string[] = [];
  const ids: string[] = [];
  for (const message of messages) {
    const text =
      typeof message.content === "string" ? message.content : JSON.stringify(message.content);
    for (const word of text.split(/[^A-Za-z0-9_]+/)) if (word.length >= 4) words.push(word);
    for (const call of message.tool_calls ?? []) ids.push(call.id);
  }
  let state = 42;
  const next = (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
  return Array.from({ length: count }, (_, i) => {
    if (i % 10 === 9 && ids.length > 0) return ids[next(ids.length)] ?? "call";
    return Array.from({ length: 1 + (i % 3) }, () => words[next(words.length)]).join(" ");
  });
}
