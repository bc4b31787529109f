/**
 * @module bench/soak
 * `pnpm bench soak [--agents 24] [--minutes 4] [--kills 3] [--seed 33]`: many simulated agents
 * against the Worker under `wrangler dev`, through the API and through the gateway (Chat
 * Completions, Responses, Anthropic Messages, streamed or not, with the unmodified SDKs), while the
 * upstream fails (a `Scenario` for `test/support/gateway-upstream`, drawn per attempt: overflows
 * below the session's window, 429, 500, hang-ups partway through, stalled streams, no answer at
 * all) and wrangler dev's process group (workerd with it) is killed with SIGKILL, then started
 * again on the same storage and port. Agents carry on across the kills: an append is retried with
 * its `Idempotency-Key` until it is acknowledged, a gateway turn with the same history until it is
 * answered. Some sessions compact with an LLM summarizer that takes seconds (the gateway keeps
 * their connections alive); some agents send title requests with tools beside their conversation.
 *
 * It prints a table and asserts its invariants (exit code 1 when one fails):
 * - nothing acknowledged is lost or doubled: every message of an acknowledged append, and every
 *   message of a gateway agent's last history, is in its session's transcript, once per generation;
 * - no session is stuck: after the run, each answers a last append or turn, and its compaction
 *   settles;
 * - no 5xx outside the kills but the upstream's own (the 500s it was scripted to answer, passed
 *   through, and the gateway's 502/504 for an upstream that hung up or went quiet);
 * - every context served is within its window: `GET /context`'s tokens, a gateway turn's
 *   `X-Condense-Tokens`, and what the upstream received (its count, tools included);
 * - every response under a session names its generation (`X-Condense-Generation`).
 * Overflows are counted as the service reports them: recovered (`X-Condense-Overflow-Retries`) or
 * passed through (the upstream's 400, with the `X-Condense-Overflow*` headers that say why, if the
 * service sends any); thrash events as the status reports them (any field named like `thrash`).
 * Seeded: each agent's draws come from the seed and its number, so a run is repeatable up to the
 * interleaving of the agents. Every request goes to 127.0.0.1; every loop is bounded.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { SUMMARY_SECTIONS, validateMessages } from "@condense/core";
import {
  type ScenarioFields,
  scenarioFromHeaders,
  scenarioHeaders,
  startTestServer,
  templateHandler,
} from "@condense/test-servers";
import OpenAI from "openai";
import { startGatewayUpstream } from "../test/support/gateway-upstream.ts";
import { freePort, root } from "./harness.ts";

// ------------------------------------------------------------------ options

function argument(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  const value = index >= 0 ? Number(process.argv[index + 1]) : Number.NaN;
  return Number.isFinite(value) ? value : fallback;
}

const AGENTS = argument("--agents", 24);
const MINUTES = argument("--minutes", 4);
const KILLS = argument("--kills", 3);
const SEED = argument("--seed", 33);
const KEY = "soak-key";
/** When the agents started (the Worker up), and when they stop. */
let started = 0;
let DEADLINE = Number.POSITIVE_INFINITY;

/** mulberry32: small, seeded, good enough to draw faults and sizes. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------ the Worker, killed and restarted

/** wrangler dev on a fixed port and storage, so it comes back where the agents look for it. */
class Worker {
  readonly #state = mkdtempSync(join(tmpdir(), "condense-soak-"));
  readonly #config = join(root, "wrangler.soak.jsonc");
  #child: ChildProcess | undefined;
  #output: string[] = [];
  up = false;
  /** [from, to] of each kill: from the SIGKILL to the first healthy answer after it, plus a margin. */
  readonly downtimes: Array<[number, number]> = [];

  readonly port: number;

  constructor(port: number, vars: Record<string, string>) {
    this.port = port;
    // The per-user rate limit would refuse agents that run flat out, and the inspector's build is
    // not what is soaked: a copy of the configuration without either, beside the original.
    const configured = readFileSync(join(root, "wrangler.jsonc"), "utf8");
    writeFileSync(
      this.#config,
      configured
        .replace(/("simple":\s*\{\s*"limit":\s*)\d+/, "$11000000000")
        .replace(/^\s*"build":.*$/m, ""),
    );
    writeFileSync(
      join(this.#state, "soak.env"),
      Object.entries(vars)
        .map(([name, value]) => `${name}=${JSON.stringify(value)}`)
        .join("\n"),
      { mode: 0o600 },
    );
  }

  get base(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      join(root, "node_modules/.bin/wrangler"),
      [
        "dev",
        "--ip",
        "127.0.0.1",
        "--port",
        String(this.port),
        "--inspector-port",
        String(await freePort()),
        "--persist-to",
        join(this.#state, "state"),
        "--env-file",
        join(this.#state, "soak.env"),
        "--config",
        this.#config,
        "--show-interactive-dev-session=false",
      ],
      {
        cwd: root,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" },
      },
    );
    const keep = (chunk: Buffer) => {
      this.#output.push(...chunk.toString("utf8").split("\n"));
      this.#output.splice(0, Math.max(0, this.#output.length - 200));
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    this.#child = child;
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      try {
        const response = await fetch(`${this.base}/healthz`, {
          signal: AbortSignal.timeout(1_000),
        });
        if (response.ok) {
          this.up = true;
          return;
        }
      } catch {
        // not up yet
      }
      await sleep(200);
    }
    throw new Error(`wrangler dev did not come up:\n${this.#output.slice(-30).join("\n")}`);
  }

  /** SIGKILL to the whole group (wrangler and its workerd): no shutdown of any kind. */
  async kill(): Promise<number> {
    const child = this.#child;
    if (child?.pid === undefined) return Date.now();
    const at = Date.now();
    this.up = false;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
    return at;
  }

  async killAndRestart(): Promise<void> {
    const from = await this.kill();
    await sleep(300);
    await this.start();
    this.downtimes.push([from, Date.now() + 2_000]);
  }

  async stop(): Promise<void> {
    await this.kill();
    rmSync(this.#state, { recursive: true, force: true });
    rmSync(this.#config, { force: true });
  }

  /** Whether [start, end] touched a kill (the request may have been cut by it). */
  duringKill(start: number, end: number): boolean {
    if (!this.up) return true;
    return this.downtimes.some(([from, to]) => start <= to && end >= from);
  }
}

// ------------------------------------------------------------------ what the run counts

const figures = {
  requests: 0,
  apiRequests: 0,
  gatewayRequests: 0,
  acknowledgedAppends: 0,
  gatewayTurns: 0,
  contextsChecked: 0,
  overWindow: [] as string[],
  /** Of those, contexts whose newest output alone was larger than the window. */
  overWindowByNewest: 0,
  invalidContexts: [] as string[],
  overflowsInjected: 0,
  overflowsRecovered: 0,
  overflowsPassedThrough: new Map<string, number>(),
  injectedErrors: 0,
  upstreamFaultErrors: 0,
  killErrors: 0,
  fivexxOutsideKills: [] as string[],
  missingGeneration: [] as string[],
  sideRequests: 0,
  sideRequestsKept: 0,
  keepAliveCommits: 0,
  otherErrors: new Map<string, number>(),
  lost: [] as string[],
  doubled: [] as string[],
  stuck: [] as string[],
  thrashEvents: 0,
  thrashReported: false,
};

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

// ------------------------------------------------------------------ the agents

type Route = "api" | "chat" | "responses" | "anthropic";

interface Agent {
  id: string;
  session: string;
  route: Route;
  stream: boolean;
  window: number;
  draw: () => number;
  /** Markers of everything acknowledged (API) or sent in the last history (gateway), by role. */
  keys: string[];
  /** Tokens of the newest tool output the agent sent (the messages after the last answer). */
  newestOutput: number;
}

/** Records a context over its window, and whether the agent's newest output alone was over it. */
function overWindow(agent: Agent, what: string, tokens: number): void {
  const newest = agent.newestOutput > agent.window;
  if (newest) figures.overWindowByNewest++;
  figures.overWindow.push(
    `${agent.id} ${what} ${tokens} > ${agent.window}${newest ? ` (its newest output alone ~${agent.newestOutput})` : ""}`,
  );
}

const FILLER = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima ";

/** Text of about `tokens` tokens, starting with `marker`, distinct from every other text. */
function text(marker: string, tokens: number): string {
  const words = Math.max(1, Math.round(tokens * 0.75));
  const body = FILLER.repeat(Math.ceil(words / 12))
    .split(" ")
    .slice(0, words)
    .join(" ");
  return `${marker} ${body}`;
}

/** A tool output's size: mostly small, sometimes most of the window, rarely more than all of it. */
function outputTokens(agent: Agent): number {
  const r = agent.draw();
  const tokens =
    r < 0.03
      ? Math.round(agent.window * (1.1 + agent.draw() * 0.4))
      : r < 0.12
        ? Math.round(agent.window * (0.3 + agent.draw() * 0.4))
        : Math.round(80 + agent.draw() * agent.window * 0.08);
  agent.newestOutput = tokens;
  return tokens;
}

async function api(
  worker: Worker,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: unknown; start: number; end: number }> {
  const start = Date.now();
  figures.requests++;
  figures.apiRequests++;
  try {
    const response = await fetch(`${worker.base}${path}`, {
      method,
      headers: { Authorization: `Bearer ${KEY}`, "content-type": "application/json", ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // a body that is not JSON stays text
    }
    return { status: response.status, body: parsed, start, end: Date.now() };
  } catch {
    return { status: 0, body: undefined, start, end: Date.now() };
  }
}

/** Counts an error reply of the Worker: a kill's, or one it should not have given. */
function countError(
  worker: Worker,
  what: string,
  status: number,
  start: number,
  end: number,
): void {
  if (worker.duringKill(start, end)) {
    figures.killErrors++;
    return;
  }
  if (status === 0)
    bump(figures.otherErrors, `${what}: no answer (connection failed or 60 s passed)`);
  else if (status >= 500) figures.fivexxOutsideKills.push(`${what}: ${status}`);
  else bump(figures.otherErrors, `${what}: ${status}`);
}

/** Appends `messages` until acknowledged, with one Idempotency-Key: never twice, never lost. */
async function appendAcknowledged(worker: Worker, agent: Agent, key: string, messages: unknown[]) {
  for (let attempt = 0; Date.now() < DEADLINE + 120_000; attempt++) {
    const reply = await api(
      worker,
      "POST",
      `/v1/sessions/${agent.session}/messages`,
      { messages, model: "gpt-4o" },
      { "Idempotency-Key": key },
    );
    if (reply.status === 200) {
      figures.acknowledgedAppends++;
      return true;
    }
    countError(worker, "append", reply.status, reply.start, reply.end);
    if (reply.status >= 400 && reply.status < 500) return false;
    await sleep(Math.min(2_000, 200 * (attempt + 1)));
  }
  return false;
}

interface ContextBody {
  messages: unknown[];
  tokens: number;
  contextWindow: number;
}

async function checkContext(worker: Worker, agent: Agent): Promise<void> {
  const reply = await api(worker, "GET", `/v1/sessions/${agent.session}/context?format=openai`);
  if (reply.status !== 200) {
    countError(worker, "context", reply.status, reply.start, reply.end);
    return;
  }
  const context = reply.body as ContextBody;
  figures.contextsChecked++;
  if (context.tokens > context.contextWindow) overWindow(agent, "/context", context.tokens);
  const valid = validateMessages(context.messages as never, "openai");
  if (!valid.ok) {
    figures.invalidContexts.push(
      `${agent.id} /context: ${valid.problems[0]?.message ?? "invalid"}`,
    );
  }
}

async function apiAgent(worker: Worker, agent: Agent): Promise<void> {
  await api(worker, "PATCH", `/v1/sessions/${agent.session}`, {
    contextWindow: agent.window,
    ...(agent.draw() < 0.3 ? { summarizerModel: "soak-summarizer" } : {}),
  });
  const first = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: `⟦${agent.id}-t0⟧ Fix the build.` },
  ];
  if (await appendAcknowledged(worker, agent, `${agent.id}-t0`, first)) {
    agent.keys.push(`system:You are a coding agent.`, `user:⟦${agent.id}-t0⟧`);
  }
  for (let turn = 1; Date.now() < DEADLINE; turn++) {
    const marker = `⟦${agent.id}-t${turn}⟧`;
    const id = `call_${agent.id}_${turn}`;
    const messages: unknown[] = [
      {
        role: "assistant",
        content: `${marker} reading`,
        tool_calls: [
          { id, type: "function", function: { name: "read_file", arguments: `{"n":${turn}}` } },
        ],
      },
      { role: "tool", tool_call_id: id, content: text(marker, outputTokens(agent)) },
      { role: "user", content: `${marker} go on` },
    ];
    if (await appendAcknowledged(worker, agent, `${agent.id}-t${turn}`, messages)) {
      agent.keys.push(`assistant:${marker}`, `tool:${marker}`, `user:${marker}`);
    }
    const r = agent.draw();
    if (r < 0.5) await checkContext(worker, agent);
    else if (r < 0.55) {
      // The client's provider refused the context as too long: the session compacts against it.
      const limit = Math.round(agent.window * (0.6 + agent.draw() * 0.3));
      const reply = await api(worker, "POST", `/v1/sessions/${agent.session}/overflow`, {
        error: {
          status: 400,
          message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${agent.window + 500} tokens.`,
        },
        format: "openai",
      });
      figures.overflowsInjected++;
      if (reply.status === 200) {
        const served = reply.body as ContextBody;
        figures.contextsChecked++;
        if (served.tokens <= limit) figures.overflowsRecovered++;
        else
          bump(
            figures.overflowsPassedThrough,
            "/overflow: the context served is over the stated limit",
          );
      } else countError(worker, "overflow", reply.status, reply.start, reply.end);
    } else if (r < 0.57) {
      const reply = await api(worker, "POST", `/v1/sessions/${agent.session}/compact`, {});
      if (reply.status !== 200) countError(worker, "compact", reply.status, reply.start, reply.end);
    }
  }
}

// ---- gateway agents: the SDKs, the history in each protocol's own shape

interface Answered {
  headers: Headers;
  /** The answer, as the next history holds it. */
  history: unknown[];
  /** The tool call the answer makes, if any. */
  callId: string | undefined;
  /** Text of the answer's assistant messages (for the transcript check). */
  keys: string[];
}

const TOOLS: Record<Exclude<Route, "api">, unknown[]> = {
  chat: [
    {
      type: "function",
      function: { name: "read_file", parameters: { type: "object", properties: {} } },
    },
  ],
  responses: [
    { type: "function", name: "read_file", parameters: { type: "object", properties: {} } },
  ],
  anthropic: [{ name: "read_file", input_schema: { type: "object", properties: {} } }],
};

const PROMPT = "You are a coding agent. Use read_file to look at the code.";

/**
 * An error that came in a 200's body: the gateway committed the response to keep the connection
 * alive (`X-Condense-Keep-Alive`), then the upstream or the gateway failed. `status` is the one the
 * error would have had, read from its code or message.
 */
class InBandError extends Error {
  readonly status: number;
  constructor(body: unknown) {
    const error = (body as { error?: { message?: unknown; code?: unknown; type?: unknown } }).error;
    const message = typeof error?.message === "string" ? error.message : JSON.stringify(body);
    super(message);
    const scripted = /scripted failure (\d{3})/.exec(message)?.[1];
    const code = String(error?.code ?? error?.type ?? "");
    this.status =
      scripted !== undefined
        ? Number(scripted)
        : code === "upstream_timeout"
          ? 504
          : code === "upstream_unreachable"
            ? 502
            : 400;
  }
}

/** `value` as the SDK returned it, or the in-band error it is (`InBandError`). */
function answered<T>(value: T, shaped: (value: T) => boolean): T {
  if (!shaped(value)) throw new InBandError(value);
  return value;
}

function clients(worker: Worker, agent: Agent, scenario: ScenarioFields) {
  const headers = {
    "X-Condense-Key": KEY,
    "X-Condense-Session": agent.session,
    "X-Condense-Context-Window": String(agent.window),
    ...scenarioHeaders({ ...scenario, name: agent.id }),
  };
  let seen: Headers | undefined;
  // The SDKs hide a stream's response headers: this fetch keeps them.
  const keeping: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    seen = response.headers;
    return response;
  };
  const common = { maxRetries: 0, timeout: 90_000, defaultHeaders: headers, fetch: keeping };
  return {
    openai: new OpenAI({ baseURL: `${worker.base}/v1/gateway/soak`, apiKey: "unused", ...common }),
    anthropic: new Anthropic({
      baseURL: `${worker.base}/v1/gateway/anthropic`,
      apiKey: "unused",
      ...common,
    }),
    headers: () => seen,
  };
}

async function gatewayCall(
  worker: Worker,
  agent: Agent,
  route: Exclude<Route, "api">,
  history: unknown[],
  scenario: ScenarioFields,
  options: { tools?: boolean; system?: string } = {},
): Promise<Answered> {
  const { openai, anthropic, headers } = clients(worker, agent, scenario);
  const tools = options.tools === false ? {} : { tools: TOOLS[route] as never };
  const system = options.system ?? PROMPT;
  figures.requests++;
  figures.gatewayRequests++;
  if (route === "chat") {
    const body = {
      model: "gpt-4o",
      messages: [{ role: "system", content: system }, ...history] as never,
      ...tools,
    };
    const message = agent.stream
      ? (await openai.chat.completions.stream(body).finalChatCompletion()).choices[0]?.message
      : answered(await openai.chat.completions.create(body), (value) =>
          Array.isArray(value.choices),
        ).choices[0]?.message;
    if (message === undefined) throw new Error("no choice");
    const call = message.tool_calls?.[0];
    const kept = {
      role: "assistant",
      content: message.content,
      ...(message.tool_calls !== undefined && message.tool_calls.length > 0
        ? { tool_calls: message.tool_calls }
        : {}),
    };
    return {
      headers: headers() ?? new Headers(),
      history: [kept],
      callId: call?.id,
      keys: [call === undefined ? `assistant:${message.content ?? ""}` : `call:${call.id}`],
    };
  }
  if (route === "responses") {
    const body = { model: "gpt-4o", instructions: system, input: history as never, ...tools };
    const response = agent.stream
      ? await openai.responses.stream(body).finalResponse()
      : answered(await openai.responses.create(body), (value) => Array.isArray(value.output));
    const call = response.output.find((item) => item.type === "function_call");
    const said = response.output_text;
    return {
      headers: headers() ?? new Headers(),
      history: response.output,
      callId: call?.type === "function_call" ? call.call_id : undefined,
      keys: [call?.type === "function_call" ? `call:${call.call_id}` : `assistant:${said}`],
    };
  }
  const body = {
    model: "claude-opus-4-6",
    max_tokens: 1024,
    system,
    messages: history as never,
    ...tools,
  };
  const message = agent.stream
    ? await anthropic.messages.stream(body).finalMessage()
    : answered(await anthropic.messages.create(body), (value) => Array.isArray(value.content));
  const call = message.content.find((block) => block.type === "tool_use");
  const said = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  return {
    headers: headers() ?? new Headers(),
    history: [{ role: "assistant", content: message.content }],
    callId: call?.type === "tool_use" ? call.id : undefined,
    keys: [call?.type === "tool_use" ? `call:${call.id}` : `assistant:${said}`],
  };
}

/** What the upstream is scripted to do with one attempt. */
function drawScript(agent: Agent): { scenario: ScenarioFields; overflow: boolean; fault: boolean } {
  const r = agent.draw();
  const tool: ScenarioFields = agent.draw() < 0.85 ? { tool: "read_file" } : {};
  if (r < 0.06) {
    const limit = Math.round(agent.window * (0.55 + agent.draw() * 0.4));
    return { scenario: { limit, ...tool }, overflow: true, fault: false };
  }
  if (r < 0.1) return { scenario: { fail: 429, ...tool }, overflow: false, fault: true };
  if (r < 0.13) return { scenario: { fail: 500, ...tool }, overflow: false, fault: true };
  if (r < 0.16) return { scenario: { fault: "drop", ...tool }, overflow: false, fault: true };
  if (r < 0.18) {
    const fault = agent.stream ? "stall" : "hang";
    return { scenario: { fault, ...tool }, overflow: false, fault: true };
  }
  return { scenario: tool, overflow: false, fault: false };
}

/** The checks every answered gateway request gets. */
function checkHeaders(agent: Agent, headers: Headers, what: string): void {
  if (headers.get("X-Condense-Generation") === null) {
    figures.missingGeneration.push(`${agent.id} ${what}`);
  }
  const tokens = Number(headers.get("X-Condense-Tokens"));
  if (headers.get("X-Condense-Tokens") !== null) {
    figures.contextsChecked++;
    if (tokens > agent.window) overWindow(agent, `${what} X-Condense-Tokens`, tokens);
  }
  if (Number(headers.get("X-Condense-Overflow-Retries") ?? 0) > 0) figures.overflowsRecovered++;
  if (headers.get("X-Condense-Keep-Alive") !== null) figures.keepAliveCommits++;
}

/** Why the service says it passed an overflow through: its `X-Condense-Overflow*` headers. */
function passThroughReason(headers: Headers | undefined): string {
  const said: string[] = [];
  headers?.forEach((value, name) => {
    if (/^x-condense-overflow/i.test(name)) said.push(`${name}: ${value}`);
  });
  return said.length === 0 ? "no reason given (no X-Condense-Overflow* header)" : said.join(", ");
}

/** One attempt's error, classified. */
function classify(
  worker: Worker,
  agent: Agent,
  error: unknown,
  start: number,
  drawn: ReturnType<typeof drawScript>,
): void {
  const end = Date.now();
  const message = error instanceof Error ? error.message : String(error);
  // An error event in a stream has no status of its own: the gateway's says it (`502: …`).
  const inStream = Number(/^(\d{3}):/.exec(message)?.[1] ?? -1);
  const status =
    error instanceof OpenAI.APIError || error instanceof Anthropic.APIError
      ? (error.status ?? inStream)
      : error instanceof InBandError
        ? error.status
        : 0;
  if (worker.duringKill(start, end)) {
    figures.killErrors++;
    return;
  }
  if (drawn.overflow && /context length|too long|maximum/i.test(message)) {
    const headers =
      error instanceof OpenAI.APIError || error instanceof Anthropic.APIError
        ? error.headers
        : undefined;
    bump(figures.overflowsPassedThrough, passThroughReason(headers as Headers | undefined));
    return;
  }
  if (drawn.fault) {
    // The upstream's scripted failure, passed through or turned into the gateway's 502/504.
    if (status === 429 || status === 500) figures.injectedErrors++;
    else figures.upstreamFaultErrors++;
    return;
  }
  if (status >= 500)
    figures.fivexxOutsideKills.push(`${agent.id} gateway ${status}: ${message.slice(0, 120)}`);
  else bump(figures.otherErrors, `gateway ${status}: ${message.slice(0, 80)}`);
}

/** Sends `history` until answered (a fresh draw per attempt); undefined when the run ends first. */
async function answeredTurn(
  worker: Worker,
  agent: Agent,
  route: Exclude<Route, "api">,
  history: unknown[],
): Promise<Answered | undefined> {
  for (let attempt = 0; Date.now() < DEADLINE + 120_000; attempt++) {
    const drawn = drawScript(agent);
    const start = Date.now();
    try {
      const answer = await gatewayCall(worker, agent, route, history, drawn.scenario);
      checkHeaders(agent, answer.headers, `turn`);
      figures.gatewayTurns++;
      return answer;
    } catch (error) {
      classify(worker, agent, error, start, drawn);
      await sleep(Math.min(2_000, 150 * (attempt + 1)));
    }
    // After the run, answer without faults: a session that never answers is stuck.
    if (Date.now() > DEADLINE && attempt > 3) break;
  }
  return undefined;
}

function toolResult(route: Exclude<Route, "api">, callId: string, content: string): unknown {
  if (route === "chat") return { role: "tool", tool_call_id: callId, content };
  if (route === "responses")
    return { type: "function_call_output", call_id: callId, output: content };
  return { role: "user", content: [{ type: "tool_result", tool_use_id: callId, content }] };
}

/** The upstream's count of every context it received for `agent` since the last look. */
function checkReceived(
  upstream: Awaited<ReturnType<typeof startGatewayUpstream>>,
  agent: Agent,
  seen: { n: number },
): void {
  const calls = upstream.calls(agent.id);
  for (const call of calls.slice(seen.n)) {
    if (call.tokens === null) continue;
    const { limit } = scenarioFromHeaders(call.headers);
    if (limit !== undefined && call.tokens > limit) figures.overflowsInjected++;
    figures.contextsChecked++;
    if (call.tokens > agent.window) overWindow(agent, "upstream received", call.tokens);
  }
  seen.n = calls.length;
}

async function gatewayAgent(
  worker: Worker,
  upstream: Awaited<ReturnType<typeof startGatewayUpstream>>,
  agent: Agent,
): Promise<void> {
  const route = agent.route as Exclude<Route, "api">;
  if (agent.draw() < 0.3) {
    await api(worker, "PATCH", `/v1/sessions/${agent.session}`, {
      summarizerModel: "soak-summarizer",
    });
  }
  const history: unknown[] = [{ role: "user", content: `⟦${agent.id}-t0⟧ Fix the build.` }];
  const keys = [`user:⟦${agent.id}-t0⟧`];
  const seen = { n: 0 };
  for (let turn = 1; Date.now() < DEADLINE; turn++) {
    if (agent.draw() < 0.05) await titleRequest(worker, agent, route, turn > 1);
    const answer = await answeredTurn(worker, agent, route, history);
    checkReceived(upstream, agent, seen);
    if (answer === undefined) break;
    history.push(...answer.history);
    keys.push(...answer.keys);
    const marker = `⟦${agent.id}-t${turn}⟧`;
    if (answer.callId !== undefined) {
      history.push(toolResult(route, answer.callId, text(marker, outputTokens(agent))));
      keys.push(`tool:${marker}`);
    } else {
      history.push({ role: "user", content: `${marker} go on` });
      keys.push(`user:${marker}`);
      agent.newestOutput = 0;
    }
  }
  agent.keys = keys;
  // The last history, answered without faults: it extends the session (or is stuck).
  figures.requests++;
  const last = await answeredTurn(worker, agent, route, history);
  if (last === undefined) figures.stuck.push(`${agent.id}: its last turn was never answered`);
  else agent.keys = [...keys, ...last.keys];
}

/** A title request with a tool definition: never takes the session, is kept, and says so. */
async function titleRequest(
  worker: Worker,
  agent: Agent,
  route: Exclude<Route, "api">,
  conversation: boolean,
): Promise<void> {
  figures.sideRequests++;
  const start = Date.now();
  try {
    const answer = await gatewayCall(
      worker,
      agent,
      route,
      [{ role: "user", content: `⟦${agent.id}-title⟧ Fix the build.` }],
      {},
      { system: "Generate a short title for the conversation. Reply with the title only." },
    );
    checkHeaders(agent, answer.headers, "title request");
    if (
      answer.headers.get("X-Condense-Stateless") !== null &&
      answer.headers.get("X-Condense-Side-Request") !== null
    ) {
      figures.sideRequestsKept++;
    } else if (conversation) {
      bump(figures.otherErrors, "a title request took the session");
    }
  } catch (error) {
    classify(worker, agent, error, start, { scenario: {}, overflow: false, fault: false });
  }
}

// ------------------------------------------------------------------ the checks after the run

interface TranscriptEntry {
  seq: number;
  role: string;
  message: { role: string; content: unknown; tool_calls?: Array<{ id: string }> };
}

async function whole<T>(worker: Worker, path: string): Promise<T | undefined> {
  for (let attempt = 0; attempt < 30; attempt++) {
    const reply = await api(worker, "GET", path);
    if (reply.status === 200) return reply.body as T;
    await sleep(1_000);
  }
  return undefined;
}

/** The keys a stored message stands for: its role and marker, or its tool call, or its text. */
function keysOf(entry: TranscriptEntry): string[] {
  const { message } = entry;
  const content =
    typeof message.content === "string"
      ? message.content
      : Array.isArray(message.content)
        ? message.content
            .map(
              (part: { text?: string; content?: unknown }) =>
                part.text ?? (typeof part.content === "string" ? part.content : ""),
            )
            .join("")
        : "";
  const keys: string[] = [];
  for (const call of message.tool_calls ?? []) keys.push(`call:${call.id}`);
  const marker = /⟦[^⟧]+⟧/.exec(content)?.[0];
  if (message.role === "system") keys.push(`system:${content}`);
  else if (marker !== undefined) keys.push(`${entry.role}:${marker}`);
  else if (message.role === "assistant" && keys.length === 0) keys.push(`assistant:${content}`);
  return keys;
}

async function checkSession(worker: Worker, agent: Agent): Promise<void> {
  interface Status {
    generation: number;
    compaction: { status: string };
  }
  let status = await whole<Status>(worker, `/v1/sessions/${agent.session}`);
  for (let wait = 0; wait < 60 && status?.compaction.status === "running"; wait++) {
    await sleep(1_000);
    status = await whole<Status>(worker, `/v1/sessions/${agent.session}`);
  }
  if (status === undefined) {
    figures.stuck.push(`${agent.id}: no status`);
    return;
  }
  if (status.compaction.status === "running")
    figures.stuck.push(`${agent.id}: compaction still running`);
  const raw = JSON.stringify(status);
  for (const match of raw.matchAll(/"[^"]*thrash[^"]*":\s*(\d+)/gi)) {
    figures.thrashReported = true;
    figures.thrashEvents += Number(match[1]);
  }
  // Every generation's messages, once per generation.
  const generations = new Map<number, Map<string, number>>();
  for (let generation = 1; generation <= status.generation; generation++) {
    const counts = new Map<string, number>();
    let after = 0;
    for (let page = 0; page < 200; page++) {
      const body = await whole<{ messages: TranscriptEntry[]; nextAfter: number | null }>(
        worker,
        `/v1/sessions/${agent.session}/transcript?generation=${generation}&after=${after}&limit=1000`,
      );
      if (body === undefined) break;
      for (const entry of body.messages) for (const key of keysOf(entry)) bump(counts, key);
      if (body.nextAfter === null) break;
      after = body.nextAfter;
    }
    generations.set(generation, counts);
  }
  for (const [generation, counts] of generations) {
    for (const [key, count] of counts) {
      if (count > 1 && !key.startsWith("system:")) {
        figures.doubled.push(`${agent.id} generation ${generation}: ${key} ×${count}`);
      }
    }
  }
  const anywhere = new Set([...generations.values()].flatMap((counts) => [...counts.keys()]));
  for (const key of agent.keys) {
    if (!anywhere.has(key)) figures.lost.push(`${agent.id}: ${key}`);
  }
  if (agent.route === "api") {
    // Still answers: one more append, then its context.
    const last = await appendAcknowledged(worker, agent, `${agent.id}-last`, [
      { role: "user", content: `⟦${agent.id}-last⟧ done?` },
    ]);
    if (!last) figures.stuck.push(`${agent.id}: a last append was never acknowledged`);
    await checkContext(worker, agent);
  }
}

// ------------------------------------------------------------------ the run

// Providers keep idle connections a minute or more; Node's default of 5 s makes workerd reuse a
// connection the upstream is closing now and then, and the gateway answers 502 for it
// (`--upstream-keep-alive-ms 5000` shows it).
const upstream = await startGatewayUpstream({
  keepAliveTimeoutMs: argument("--upstream-keep-alive-ms", 65_000),
});
const summarizer = await startTestServer(async (request) => {
  // A summarizer that takes seconds: longer than the keep-alive interval below.
  await sleep(3_000);
  return templateHandler(SUMMARY_SECTIONS)(request, 0, { closed: new Promise(() => {}) });
});
const worker = new Worker(await freePort(), {
  API_KEYS: `soak:${KEY}`,
  COMPACTION_DELAY_MS: "500",
  GATEWAY_UPSTREAMS: `soak=${upstream.origin}/v1`,
  GATEWAY_KEY_SOAK: "sk-soak-upstream",
  ANTHROPIC_BASE_URL: upstream.origin,
  ANTHROPIC_API_KEY: "sk-ant-soak",
  SUMMARIZER_BASE_URL: summarizer.url,
  SUMMARIZER_API_KEY: "sk-soak-summarizer",
  GATEWAY_TIMEOUT_MS: "8000",
  GATEWAY_STREAM_IDLE_TIMEOUT_MS: "4000",
  GATEWAY_KEEPALIVE_MS: "2000",
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void worker.stop().finally(() => process.exit(130));
  });
}

let exitCode = 0;
try {
  await worker.start();
  started = Date.now();
  DEADLINE = started + MINUTES * 60_000;
  const routes: Route[] = ["api", "chat", "responses", "anthropic"];
  const agents: Agent[] = Array.from({ length: AGENTS }, (_, n) => {
    const draw = random(SEED * 1_000_003 + n);
    const route = routes[n % routes.length] ?? "api";
    return {
      id: `a${n}`,
      session: `soak-${SEED}-a${n}`,
      route,
      stream: route !== "api" && draw() < 0.5,
      window: [8_000, 12_000, 16_000, 32_000][Math.floor(draw() * 4)] ?? 16_000,
      draw,
      keys: [],
      newestOutput: 0,
    };
  });
  const kills = (async () => {
    for (let kill = 1; kill <= KILLS; kill++) {
      const at = started + ((MINUTES * 60_000) / (KILLS + 1)) * kill;
      await sleep(Math.max(0, at - Date.now()));
      if (Date.now() > DEADLINE) break;
      console.log(`kill -9 #${kill} at ${((Date.now() - started) / 1000).toFixed(0)} s`);
      await worker.killAndRestart();
      console.log(
        `  back after ${((Date.now() - (worker.downtimes.at(-1)?.[0] ?? 0)) / 1000 - 2).toFixed(1)} s`,
      );
    }
  })();
  await Promise.all([
    kills,
    ...agents.map((agent) =>
      agent.route === "api" ? apiAgent(worker, agent) : gatewayAgent(worker, upstream, agent),
    ),
  ]);
  for (const agent of agents) await checkSession(worker, agent);

  const duration = (Date.now() - started) / 1000;
  const passed = [...figures.overflowsPassedThrough.entries()];
  const rows: Array<[string, string]> = [
    ["seed", String(SEED)],
    [
      "agents",
      `${AGENTS} (${agents.filter((a) => a.route === "api").length} API, ${agents.filter((a) => a.route !== "api").length} gateway: ${agents.filter((a) => a.stream).length} streamed)`,
    ],
    ["duration", `${duration.toFixed(0)} s (agents ${MINUTES} min, then the checks)`],
    [
      "kill -9",
      `${worker.downtimes.length} (down ${worker.downtimes.map(([from, to]) => `${((to - 2_000 - from) / 1000).toFixed(1)} s`).join(", ")})`,
    ],
    [
      "requests",
      `${figures.requests} (API ${figures.apiRequests}, gateway ${figures.gatewayRequests})`,
    ],
    [
      "appends acknowledged / gateway turns answered",
      `${figures.acknowledgedAppends} / ${figures.gatewayTurns}`,
    ],
    ["contexts checked", String(figures.contextsChecked)],
    [
      "contexts over their window",
      `${figures.overWindow.length} (${figures.overWindowByNewest} where the newest output alone was over it)`,
    ],
    ["contexts invalid (openai)", String(figures.invalidContexts.length)],
    ["overflows (the upstream refused as too long)", String(figures.overflowsInjected)],
    ["  recovered", String(figures.overflowsRecovered)],
    [
      "  passed through",
      `${passed.reduce((sum, [, n]) => sum + n, 0)}${passed.map(([why, n]) => `\n      ${n} × ${why}`).join("")}`,
    ],
    [
      "upstream faults (429/500 passed through; 502/504)",
      `${figures.injectedErrors}; ${figures.upstreamFaultErrors}`,
    ],
    ["errors during kills (retried)", String(figures.killErrors)],
    ["5xx outside kills", String(figures.fivexxOutsideKills.length)],
    ["responses without X-Condense-Generation", String(figures.missingGeneration.length)],
    [
      "title requests (kept as side requests)",
      `${figures.sideRequests} (${figures.sideRequestsKept})`,
    ],
    ["keep-alive commits", String(figures.keepAliveCommits)],
    ["lost / doubled", `${figures.lost.length} / ${figures.doubled.length}`],
    ["stuck sessions", String(figures.stuck.length)],
    [
      "thrash events",
      figures.thrashReported
        ? String(figures.thrashEvents)
        : "0 (the status reports no thrash field)",
    ],
    [
      "other errors",
      [...figures.otherErrors.entries()].map(([what, n]) => `${n} × ${what}`).join("; ") || "none",
    ],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  console.log(`\nsoak (${new Date().toISOString()})`);
  for (const [name, value] of rows) console.log(`${name.padEnd(width)}  ${value}`);
  const failures: Array<[string, string[]]> = [
    ["lost", figures.lost],
    ["doubled", figures.doubled],
    ["stuck", figures.stuck],
    ["5xx outside kills", figures.fivexxOutsideKills],
    ["over the window", figures.overWindow],
    ["invalid contexts", figures.invalidContexts],
    ["missing X-Condense-Generation", figures.missingGeneration],
  ];
  for (const [what, cases] of failures) {
    if (cases.length === 0) continue;
    exitCode = 1;
    // Those the newest output does not explain first: they are the ones to look at.
    const ordered = [
      ...cases.filter((line) => !line.includes("newest output alone")),
      ...cases.filter((line) => line.includes("newest output alone")),
    ];
    console.log(
      `\nFAILED: ${what} (${cases.length}), e.g.:\n  ${ordered.slice(0, 8).join("\n  ")}`,
    );
  }
  if (exitCode === 0) console.log("\nevery invariant held");
} finally {
  await worker.stop();
  await upstream.close();
  await summarizer.close();
}
process.exit(exitCode);
