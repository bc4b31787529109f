/**
 * @module bench/bench
 * `node bench/bench.ts` (Node ≥ 24): measures the Worker under `wrangler dev`
 * on loopback and prints the figures (it asserts nothing):
 * - append latency p50/p99 with no compaction, and while a 5-second LLM compaction is in flight;
 * - appends per second on one session and across 50 sessions;
 * - the CPU time of compacting a 200k-token session (in this Node process, with the built engine);
 * - the same compaction through the Durable Object's own code path: sessions built by appends, each
 *   compacted by `POST /compact` with the deterministic summarizer in a Worker restarted after the
 *   appends (so no count of them is cached), its `durationMs` (snapshot to commit) read from
 *   `/compactions`;
 * - the gateway: what a turn of an agent that sends its whole 150k-token history every turn costs
 *   through `/v1/gateway` against calling the same upstream directly (both with the `openai` SDK,
 *   the upstream on loopback answering at once), p50/p99 of the time added per turn, and the time
 *   to the first streamed chunk, direct and through the gateway.
 * - recall (`search`): append latency with the search index against the same append path with
 *   indexing switched off (the `BENCH_NO_SEARCH_INDEX` seam, a second Worker, appends alternated), and
 *   `GET /search` latency over a 200k-token session of corpus transcripts (../shared/corpus when
 *   present, else the engine's fixtures), before and after a compaction.
 * `node bench/bench.ts gateway` (or any of `compaction-cpu`, `durable-object`, `service`, `search`)
 * runs only those sections.
 * The "LLM" is a local OpenAI-compatible server that answers a valid summary after 5 s. Every request
 * goes to 127.0.0.1; every loop is bounded in count and time. Needs `pnpm --filter @condense/core build`.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type ChatMessage, compact, countMessageTokens } from "@condense/core";
import { TRANSCRIPTS_DIR } from "@condense/test-fixtures/transcripts";
import { startTestServer } from "@condense/test-servers";
import OpenAI from "openai";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const KEY = "bench-key";
const LLM_DELAY_MS = 5_000;
const IDLE_APPENDS = 300;
const THROUGHPUT_APPENDS = 600;
const SESSIONS = 50;
const CONCURRENCY = 16;
/** Sessions compacted through the Durable Object, one compaction each. */
const COMPACTED_SESSIONS = 9;
/** Messages per append while a session is built. */
const APPEND_BATCH = 150;

const SUMMARY = [
  "## Goal\nBenchmark summary.",
  "## Progress\nDone: appends measured.",
  "## Files\nNone",
  "## Exact identifiers\nNone",
  "## Next steps\nContinue.",
].join("\n\n");

/** A summarizer that takes `LLM_DELAY_MS` to answer. */
async function startSlowLlm(): Promise<{ url: string; close: () => void }> {
  const server = await startTestServer(() => ({
    type: "completion",
    content: SUMMARY,
    delayMs: LLM_DELAY_MS,
    usage: { prompt_tokens: 1000, completion_tokens: 50 },
  }));
  return { url: server.url, close: () => void server.close() };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * `wrangler dev` with these vars (and the bench's key), its state kept in `dir` (a new temporary one
 * by default), so a second Worker started on the same `dir` finds the sessions of the first.
 */
async function startWorker(
  extraVars: Record<string, string>,
  dir = mkdtempSync(join(tmpdir(), "condense-bench-")),
): Promise<{ base: string; child: ChildProcess; dir: string }> {
  const port = await freePort();
  const vars = { API_KEYS: `bench:${KEY}`, ...extraVars };
  const args = ["dev", "--ip", "127.0.0.1", "--port", String(port), "--persist-to", dir];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const child = spawn(join(root, "node_modules/.bin/wrangler"), args, {
    cwd: root,
    stdio: "ignore",
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return { base, child, dir };
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill("SIGTERM");
  throw new Error("wrangler dev did not start within 60 s");
}

async function api(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

async function timedAppend(base: string, session: string, i: number): Promise<number> {
  const started = performance.now();
  await api(base, "POST", `/v1/sessions/${session}/messages`, {
    messages: [{ role: "user", content: `message ${i}: ${"lorem ipsum ".repeat(10)}` }],
  });
  return performance.now() - started;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

function prose(turns: number): Array<Record<string, unknown>> {
  const words = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima".split(
    " ",
  );
  const messages: Array<Record<string, unknown>> = [
    { role: "system", content: "You are a planning assistant." },
    { role: "user", content: "Plan the migration." },
  ];
  for (let t = 0; t < turns; t++) {
    messages.push({
      role: "assistant",
      content: Array.from({ length: 250 }, (_, i) => words[(i + t) % words.length]).join(" "),
    });
    messages.push({ role: "user", content: `Continue with part ${t + 1}.` });
  }
  return messages;
}

async function pool(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

async function workerFigures(): Promise<void> {
  const llm = await startSlowLlm();
  const worker = await startWorker({
    SUMMARIZER_BASE_URL: llm.url,
    SUMMARIZER_API_KEY: "unused",
    COMPACTION_DELAY_MS: "0",
  });
  try {
    const { base } = worker;
    // Warm up the isolate and the tokenizer.
    for (let i = 0; i < 20; i++) await timedAppend(base, "warmup", i);

    const idle: number[] = [];
    for (let i = 0; i < IDLE_APPENDS; i++) idle.push(await timedAppend(base, "idle", i));
    console.log(
      `append latency, no compaction (${idle.length}): p50 ${ms(percentile(idle, 50))}, p99 ${ms(percentile(idle, 99))}`,
    );

    const session = "inflight";
    await api(base, "POST", `/v1/sessions/${session}/messages`, {
      messages: prose(20),
      model: "gpt-4o",
    });
    await api(base, "PATCH", `/v1/sessions/${session}`, {
      contextWindow: 100_000,
      tailTokens: 1_500,
    });
    let done = false;
    const started = performance.now();
    const compaction = api(base, "POST", `/v1/sessions/${session}/compact`, {}).finally(() => {
      done = true;
    });
    const during: number[] = [];
    // Appends only while the compaction is still waiting on the LLM (bounded by count as well).
    while (!done && during.length < 2_000)
      during.push(await timedAppend(base, session, during.length));
    const result = (await compaction) as {
      compacted: boolean;
      event: { summarizer: string | null } | null;
    };
    console.log(
      `append latency, during a ${LLM_DELAY_MS / 1000}-s LLM compaction (${during.length}): p50 ${ms(percentile(during, 50))}, p99 ${ms(percentile(during, 99))} (compaction: ${result.compacted ? "committed" : "nothing to do"}, summarizer ${result.event?.summarizer ?? "none"}, ${ms(performance.now() - started)})`,
    );
    console.log(
      `in-flight p99 / idle p99: ${(percentile(during, 99) / percentile(idle, 99)).toFixed(2)}× (goal ≤ 2×)`,
    );

    let t0 = performance.now();
    await pool(THROUGHPUT_APPENDS, CONCURRENCY, (i) => timedAppend(base, "throughput", i));
    console.log(
      `appends/s, one session, ${CONCURRENCY} concurrent: ${(THROUGHPUT_APPENDS / ((performance.now() - t0) / 1000)).toFixed(0)}`,
    );

    t0 = performance.now();
    await pool(THROUGHPUT_APPENDS, CONCURRENCY, (i) =>
      timedAppend(base, `many-${i % SESSIONS}`, i),
    );
    console.log(
      `appends/s, ${SESSIONS} sessions, ${CONCURRENCY} concurrent: ${(THROUGHPUT_APPENDS / ((performance.now() - t0) / 1000)).toFixed(0)}`,
    );
  } finally {
    worker.child.kill("SIGTERM");
    llm.close();
    rmSync(worker.dir, { recursive: true, force: true });
  }
}

/**
 * A 200k-token agent session (by a chars/4 estimate, so nothing is tokenized while it is built): tool
 * steps with long, distinct outputs, and prose turns the summary has to cover. `salt` makes the
 * outputs of one session differ from another's.
 */
function agentSession(salt = 0): Array<Record<string, unknown>> {
  const messages: Array<Record<string, unknown>> = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Fix the build of https://github.com/example/project." },
  ];
  let chars = 0;
  for (let i = 1; chars < 530_000 && i < 10_000; i++) {
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
    chars += output.length + note.length + 40;
  }
  return messages;
}

async function compactionCpu(): Promise<void> {
  const messages = agentSession();
  const cpu = process.cpuUsage();
  const wall = performance.now();
  const result = await compact({ model: "gpt-4o", messages }, { contextWindow: 128_000 });
  const used = process.cpuUsage(cpu);
  console.log(
    `compaction of a ${result.originalTokens}-token session (Node, extractive summarizer, cold token cache): CPU ${ms((used.user + used.system) / 1000)}, wall ${ms(performance.now() - wall)}, tier ${result.tier}, ${result.originalTokens} → ${result.finalTokens} tokens`,
  );
}

interface CompactionEvent {
  tier: number;
  tokensBefore: number;
  tokensAfter: number;
  durationMs: number | null;
  fallback: unknown;
}

/**
 * Compactions of 200k-token sessions through the Durable Object: built by appends (the background
 * compaction they schedule waits an hour), then, in a Worker restarted on the same state, compacted
 * by `POST /compact` with the deterministic summarizer. The event's `durationMs` spans the snapshot
 * to the commit; with no summarizer I/O it is the object's CPU time on the compaction.
 */
async function durableObjectCompaction(): Promise<void> {
  const vars = { COMPACTION_DELAY_MS: "3600000" };
  const sessions = Array.from({ length: COMPACTED_SESSIONS }, (_, s) => `compact-${s}`);
  let worker = await startWorker(vars);
  try {
    for (const [s, session] of sessions.entries()) {
      const messages = agentSession(s + 1);
      for (let from = 0; from < messages.length; from += APPEND_BATCH) {
        await api(worker.base, "POST", `/v1/sessions/${session}/messages`, {
          model: "gpt-4o",
          messages: messages.slice(from, from + APPEND_BATCH),
        });
      }
    }
    worker.child.kill("SIGTERM");
    await new Promise((resolve) => worker.child.once("exit", resolve));
    // A fresh isolate: no count of the appended messages is cached. One append builds the encoder,
    // whose first use is a cold-start figure of its own (the engine's bench).
    worker = await startWorker(vars, worker.dir);
    await timedAppend(worker.base, "warmup", 0);
    const events: CompactionEvent[] = [];
    for (const session of sessions) {
      await api(worker.base, "POST", `/v1/sessions/${session}/compact`, {});
      const { compactions } = (await api(
        worker.base,
        "GET",
        `/v1/sessions/${session}/compactions`,
      )) as { compactions: CompactionEvent[] };
      const event = compactions.at(-1);
      if (event === undefined) throw new Error(`${session}: no compaction was committed`);
      events.push(event);
    }
    const durations = events.map((event) => event.durationMs ?? Number.NaN);
    const first = events[0];
    const fallbacks = events.filter((event) => event.fallback !== null).length;
    // A configured compaction that threw was timed with its fallback: the figure would mislead.
    if (fallbacks > 0) console.log(`(${fallbacks} of these compactions fell back after a failure)`);
    console.log(
      `compaction of a ${first?.tokensBefore}-token session through the Durable Object (wrangler dev, deterministic summarizer, ${events.length} sessions): durationMs min ${ms(Math.min(...durations))}, median ${ms(percentile(durations, 50))}, max ${ms(Math.max(...durations))} (tier ${first?.tier}, ${first?.tokensBefore} → ${first?.tokensAfter} tokens)`,
    );
  } finally {
    worker.child.kill("SIGTERM");
    rmSync(worker.dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- the gateway

/** Turns measured through the gateway and directly, after the warm-up turns. */
const GATEWAY_TURNS = 60;
const GATEWAY_WARMUP_TURNS = 3;
const GATEWAY_HISTORY_TOKENS = 150_000;

/**
 * An OpenAI-compatible upstream that answers every Chat Completions request at once (JSON, or a
 * stream when asked), so that what is measured is the path to it, not the model.
 */
async function startInstantUpstream(): Promise<{ url: string; close: () => void }> {
  const server = await startTestServer((_request, index) => ({
    type: "completion",
    content: `Noted, step ${index + 1}.`,
    usage: { prompt_tokens: 150_000, completion_tokens: 5 },
  }));
  return { url: server.url, close: () => void server.close() };
}

/** An agent's history of about `tokens` tokens: tool steps with long, distinct outputs. */
function agentHistory(tokens: number): OpenAI.Chat.Completions.ChatCompletionMessageParam[] {
  const messages = agentSession().slice(0, 2);
  const steps = agentSession();
  for (let i = 2; i + 2 < steps.length; i += 3) {
    messages.push(...steps.slice(i, i + 3));
    if (
      i % 30 === 2 &&
      countMessageTokens(messages as unknown as ChatMessage[], "gpt-4.1") >= tokens
    )
      break;
  }
  return messages as unknown as OpenAI.Chat.Completions.ChatCompletionMessageParam[];
}

async function gatewayFigures(): Promise<void> {
  const upstream = await startInstantUpstream();
  const worker = await startWorker({
    GATEWAY_UPSTREAMS: `bench=${upstream.url}`,
    GATEWAY_KEY_BENCH: "sk-bench-upstream",
    COMPACTION_DELAY_MS: "3600000",
  });
  try {
    const direct = new OpenAI({
      baseURL: upstream.url,
      apiKey: "sk-bench-upstream",
      maxRetries: 0,
    });
    const gateway = new OpenAI({
      baseURL: `${worker.base}/v1/gateway/bench`,
      apiKey: KEY,
      maxRetries: 0,
      defaultHeaders: { "X-Condense-Session": "gateway-bench" },
    });
    const history = agentHistory(GATEWAY_HISTORY_TOKENS);
    const tokens = countMessageTokens(history as unknown as ChatMessage[], "gpt-4.1");
    const timed = async (client: OpenAI) => {
      const started = performance.now();
      const reply = await client.chat.completions.create({ model: "gpt-4.1", messages: history });
      return { ms: performance.now() - started, message: reply.choices[0]?.message };
    };
    // The same body forwarded untouched by the Worker (a Responses request chaining server-side
    // state): what carrying it through wrangler dev and workerd costs before any gateway work.
    const forwardedUnchanged = async () => {
      const started = performance.now();
      await gateway.responses.create({
        model: "gpt-4.1",
        previous_response_id: "resp_bench",
        input: history as never,
      });
      return performance.now() - started;
    };
    const directResponses = async () => {
      const started = performance.now();
      await direct.responses.create({
        model: "gpt-4.1",
        previous_response_id: "resp_bench",
        input: history as never,
      });
      return performance.now() - started;
    };
    const added: number[] = [];
    const transport: number[] = [];
    const viaGateway: number[] = [];
    const directly: number[] = [];
    let firstTurn = 0;
    for (let turn = 0; turn < GATEWAY_WARMUP_TURNS + GATEWAY_TURNS; turn++) {
      // Alternate which path goes first, so neither always meets a warmer loopback.
      const gatewayFirst = turn % 2 === 0;
      const a = gatewayFirst ? await timed(gateway) : await timed(direct);
      const b = gatewayFirst ? await timed(direct) : await timed(gateway);
      const [through, plain] = gatewayFirst ? [a, b] : [b, a];
      if (turn === 0) firstTurn = through.ms;
      if (turn >= GATEWAY_WARMUP_TURNS) {
        added.push(through.ms - plain.ms);
        viaGateway.push(through.ms);
        directly.push(plain.ms);
        transport.push((await forwardedUnchanged()) - (await directResponses()));
      }
      // The agent keeps the answer it got through the gateway and adds its next message.
      if (through.message !== undefined) history.push(through.message);
      history.push({ role: "user", content: `Continue with step ${turn + 1}.` });
    }
    console.log(
      `gateway, ${tokens}-token history sent every turn (${GATEWAY_TURNS} turns, loopback): added per turn p50 ${ms(percentile(added, 50))}, p99 ${ms(percentile(added, 99))} (goal ≤ 15 / 40 ms); through the gateway p50 ${ms(percentile(viaGateway, 50))}, directly p50 ${ms(percentile(directly, 50))}; the session's first turn (all ${history.length - 2 * (GATEWAY_WARMUP_TURNS + GATEWAY_TURNS)} messages appended) ${ms(firstTurn)}`,
    );
    console.log(
      `gateway, the same body forwarded untouched by the Worker (wrangler dev's and workerd's carrying of it, no gateway work): added p50 ${ms(percentile(transport, 50))}, p99 ${ms(percentile(transport, 99))}; the gateway's own work per turn (added less that) p50 ${ms(percentile(added, 50) - percentile(transport, 50))}`,
    );

    const firstChunk = async (client: OpenAI) => {
      const started = performance.now();
      const stream = await client.chat.completions.create({
        model: "gpt-4.1",
        messages: history,
        stream: true,
      });
      let elapsed = Number.NaN;
      let message = "";
      for await (const chunk of stream) {
        if (Number.isNaN(elapsed)) elapsed = performance.now() - started;
        message += chunk.choices[0]?.delta.content ?? "";
      }
      return { elapsed, message };
    };
    const ttfbGateway: number[] = [];
    const ttfbDirect: number[] = [];
    for (let turn = 0; turn < 30; turn++) {
      const gatewayFirst = turn % 2 === 0;
      const a = await firstChunk(gatewayFirst ? gateway : direct);
      const b = await firstChunk(gatewayFirst ? direct : gateway);
      const [through, plain] = gatewayFirst ? [a, b] : [b, a];
      ttfbGateway.push(through.elapsed);
      ttfbDirect.push(plain.elapsed);
      history.push({ role: "assistant", content: through.message });
      history.push({ role: "user", content: `Continue, streamed ${turn + 1}.` });
    }
    const ttfbAdded = ttfbGateway.map((value, i) => value - (ttfbDirect[i] ?? Number.NaN));
    console.log(
      `gateway, time to the first streamed chunk (30 turns): through the gateway p50 ${ms(percentile(ttfbGateway, 50))}, directly p50 ${ms(percentile(ttfbDirect, 50))}; added p50 ${ms(percentile(ttfbAdded, 50))}, p99 ${ms(percentile(ttfbAdded, 99))} (goal ≤ 10 ms)`,
    );
  } finally {
    worker.child.kill("SIGTERM");
    upstream.close();
    rmSync(worker.dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- recall (search)

const SEARCH_APPENDS = 400;
const SEARCHES = 300;
const SEARCH_SESSION_TOKENS = 200_000;

/** The corpus transcripts (../shared/corpus/normalized when present, else the engine's fixtures). */
function corpusTranscripts(): { source: string; transcripts: ChatMessage[][] } {
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
function corpusSession(transcripts: ChatMessage[][], tokens: number): ChatMessage[] {
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
async function appendAll(base: string, session: string, messages: ChatMessage[]): Promise<void> {
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
function searchQueries(messages: ChatMessage[], count: number): string[] {
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

/**
 * Searches `queries` in turn, each paired with a request that reaches the same object and does almost
 * nothing there (`GET /compactions`, an empty list): the search's own cost is the difference.
 */
async function timedSearches(
  base: string,
  session: string,
  queries: string[],
): Promise<{ times: number[]; baseline: number[] }> {
  const times: number[] = [];
  const baseline: number[] = [];
  let found = 0;
  for (const query of queries) {
    let started = performance.now();
    await api(base, "GET", `/v1/sessions/${session}/compactions`);
    baseline.push(performance.now() - started);
    started = performance.now();
    const answer = (await api(
      base,
      "GET",
      `/v1/sessions/${session}/search?q=${encodeURIComponent(query)}&limit=10`,
    )) as { results: unknown[] };
    times.push(performance.now() - started);
    if (answer.results.length > 0) found++;
  }
  console.log(`  (${found} of ${queries.length} queries found something)`);
  return { times, baseline };
}

const searchLine = ({ times, baseline }: { times: number[]; baseline: number[] }) =>
  `p50 ${ms(percentile(times, 50))}, p99 ${ms(percentile(times, 99))}; a request to the same object doing nothing (GET /compactions), alternated: p50 ${ms(percentile(baseline, 50))}, p99 ${ms(percentile(baseline, 99))}`;

async function searchFigures(): Promise<void> {
  const { source, transcripts } = corpusTranscripts();
  const vars = { COMPACTION_DELAY_MS: "3600000" };
  const indexed = await startWorker(vars);
  const plain = await startWorker({ ...vars, BENCH_NO_SEARCH_INDEX: "1" });
  try {
    // Append latency: the same corpus messages, one per request, to both Workers in turn.
    const stream = transcripts.flat().slice(0, SEARCH_APPENDS);
    const warm = stream.slice(0, 40);
    for (const worker of [indexed, plain]) await appendAll(worker.base, "append-warmup", warm);
    const withIndex: number[] = [];
    const without: number[] = [];
    for (const [i, message] of stream.entries()) {
      const order = i % 2 === 0 ? [indexed, plain] : [plain, indexed];
      for (const worker of order) {
        const started = performance.now();
        await api(worker.base, "POST", "/v1/sessions/append-bench/messages", {
          model: "gpt-4o",
          messages: [message],
        });
        (worker === indexed ? withIndex : without).push(performance.now() - started);
      }
    }
    console.log(
      `append latency, corpus messages one per request (${withIndex.length}, from ${source}): with the search index p50 ${ms(percentile(withIndex, 50))}, p99 ${ms(percentile(withIndex, 99))}; the same append path with indexing off (BENCH_NO_SEARCH_INDEX seam, second Worker, alternated) p50 ${ms(percentile(without, 50))}, p99 ${ms(percentile(without, 99))}; p99 ratio ${(percentile(withIndex, 99) / percentile(without, 99)).toFixed(2)}× (goal ≤ 1.3×)`,
    );

    // Search latency over a 200k-token session.
    const messages = corpusSession(transcripts, SEARCH_SESSION_TOKENS);
    const tokens = countMessageTokens(messages, "gpt-4o");
    const session = "search-bench";
    await appendAll(indexed.base, session, messages);
    const queries = searchQueries(messages, SEARCHES);
    await timedSearches(indexed.base, session, queries.slice(0, 20));
    const before = await timedSearches(indexed.base, session, queries);
    console.log(
      `search latency, ${tokens}-token session of ${messages.length} corpus messages (${SEARCHES} queries of 1-3 words or a tool-call id, limit 10, loopback): ${searchLine(before)} (goal p99 ≤ 20 ms)`,
    );
    await api(indexed.base, "POST", `/v1/sessions/${session}/compact`, {});
    const after = await timedSearches(indexed.base, session, queries);
    console.log(
      `search latency, the same session after a compaction (results checked against its view): ${searchLine(after)}`,
    );
  } finally {
    for (const worker of [indexed, plain]) {
      worker.child.kill("SIGTERM");
      rmSync(worker.dir, { recursive: true, force: true });
    }
  }
}

const sections = process.argv.slice(2);
const wanted = (name: string) => sections.length === 0 || sections.includes(name);
if (wanted("compaction-cpu")) await compactionCpu();
if (wanted("durable-object")) await durableObjectCompaction();
if (wanted("service")) await workerFigures();
if (wanted("gateway")) await gatewayFigures();
if (wanted("search")) await searchFigures();
