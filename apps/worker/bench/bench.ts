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
 * - the gateway's own time (`bench/gateway-latency`): a turn with a 150k-token history through the
 *   gateway with a session against the same request through a pass-through Worker under the same
 *   `wrangler dev` (and directly), for Chat Completions, Anthropic Messages and Responses;
 * - recall (`search`): append latency with the search index against the same append path with
 *   indexing switched off (the `BENCH_NO_SEARCH_INDEX` seam, a second Worker, appends alternated), and
 *   `GET /search` latency over a 200k-token session of corpus transcripts (../shared/corpus when
 *   present, else the engine's fixtures), before and after a compaction, each search alternated
 *   with a do-nothing request to the same object (`DO_NOTHING`) and its own work over it printed.
 * `node bench/bench.ts gateway` (or any of `compaction-cpu`, `durable-object`, `service`, `search`)
 * runs only those sections; `cost` (named only: it replays the corpus, ~20 minutes) runs
 * `bench/cost.ts`, the bill of Condense against the peer policies under prompt caching;
 * `floor` (named only: `bench/request-floor.ts`) what any request costs under `wrangler dev` here, a
 * hello world beside Condense's own requests, interleaved;
 * `speed` (named only: `bench/speed.ts`) issue 29's six figures in one run, each measured as its
 * section measures it, with the floor and gpt-tokenizer's cold start as the machine's reference
 * points, ending with one `## Speed figures` table the docs' measured-figures page is generated from;
 * `probes` (named only, as long) `bench/probes.ts`, what the agent still knows at checkpoints of
 * the same replays against the same peers, each with its bill; `soak` (named only, with its
 * options: `bench/soak.ts`) runs simulated agents while workerd is killed.
 * The "LLM" is a local OpenAI-compatible server that answers a valid summary after 5 s. Every request
 * goes to 127.0.0.1; every loop is bounded in count and time. Needs the engine built: `pnpm bench`
 * builds it first (`bench/build-first.ts`).
 */

import { rmSync } from "node:fs";
import { compact, countMessageTokens } from "@condense/core";
import { startTestServer } from "@condense/test-servers";
import { bundleKiB } from "./compare/figures.ts";
import { gatewayLatency } from "./gateway-latency.ts";
import {
  APPEND_BATCH,
  agentSession,
  api,
  appendAll,
  corpusSession,
  corpusTranscripts,
  cpuMs,
  DO_NOTHING,
  ISSUE_SESSION_CHARS,
  ms,
  percentile,
  percentiles,
  repositoryRoot,
  searchQueries,
  startWorker,
} from "./harness.ts";
import { requestFloor } from "./request-floor.ts";
import {
  coldStartFigures,
  ISSUE_GATEWAY_RUN,
  loadNow,
  type ObjectCompactionFigures,
  ownWork,
  type SearchFigures,
  speedSummary,
} from "./speed.ts";

const LLM_DELAY_MS = 5_000;
const IDLE_APPENDS = 300;
const THROUGHPUT_APPENDS = 600;
const SESSIONS = 50;
const CONCURRENCY = 16;
/** Sessions compacted through the Durable Object, one compaction each. */
const COMPACTED_SESSIONS = 9;

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

async function timedAppend(base: string, session: string, i: number): Promise<number> {
  const started = performance.now();
  await api(base, "POST", `/v1/sessions/${session}/messages`, {
    messages: [{ role: "user", content: `message ${i}: ${"lorem ipsum ".repeat(10)}` }],
  });
  return performance.now() - started;
}

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
 * Compactions through the Durable Object of agent sessions of two sizes: the issue's (~119k tokens,
 * issue 29's figure) and ~198k tokens. Built by appends (the background compaction they schedule
 * waits an hour), then, in a Worker restarted on the same state, compacted by `POST /compact` with
 * the deterministic summarizer, the two sizes alternated. The event's `durationMs` spans the snapshot
 * to the commit; with no summarizer I/O it is the object's CPU time on the compaction.
 */
async function durableObjectCompaction(): Promise<ObjectCompactionFigures[]> {
  const vars = { COMPACTION_DELAY_MS: "3600000" };
  const sizes = [
    { size: "issue" as const, chars: ISSUE_SESSION_CHARS },
    { size: "198k" as const, chars: undefined },
  ];
  const sessions = Array.from({ length: COMPACTED_SESSIONS }, (_, s) =>
    sizes.map(({ size, chars }) => ({ size, chars, id: `compact-${size}-${s}`, salt: s + 1 })),
  ).flat();
  let worker = await startWorker(vars);
  try {
    for (const { id, salt, chars } of sessions) {
      const messages = agentSession(salt, chars);
      for (let from = 0; from < messages.length; from += APPEND_BATCH) {
        await api(worker.base, "POST", `/v1/sessions/${id}/messages`, {
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
    const events = new Map<ObjectCompactionFigures["size"], CompactionEvent[]>();
    for (const { id, size } of sessions) {
      await api(worker.base, "POST", `/v1/sessions/${id}/compact`, {});
      const { compactions } = (await api(worker.base, "GET", `/v1/sessions/${id}/compactions`)) as {
        compactions: CompactionEvent[];
      };
      const event = compactions.at(-1);
      if (event === undefined) throw new Error(`${id}: no compaction was committed`);
      events.set(size, [...(events.get(size) ?? []), event]);
    }
    const figures: ObjectCompactionFigures[] = [];
    for (const [size, list] of events) {
      const durations = list.map((event) => event.durationMs ?? Number.NaN);
      const first = list[0];
      const fallbacks = list.filter((event) => event.fallback !== null).length;
      // A configured compaction that threw was timed with its fallback: the figure would mislead.
      if (fallbacks > 0)
        console.log(`(${fallbacks} of these compactions fell back after a failure)`);
      const tokens = list.map((event) => event.tokensBefore);
      console.log(
        `compaction of a ${size === "issue" ? "issue-29-sized " : ""}${Math.min(...tokens)}–${Math.max(...tokens)}-token session through the Durable Object (wrangler dev, deterministic summarizer, ${list.length} sessions): durationMs min ${ms(Math.min(...durations))}, median ${ms(percentile(durations, 50))}, max ${ms(Math.max(...durations))} (tier ${first?.tier}, ${first?.tokensBefore} → ${first?.tokensAfter} tokens)`,
      );
      figures.push({
        size,
        sessions: list.length,
        tokensMin: Math.min(...tokens),
        tokensMax: Math.max(...tokens),
        minMs: Math.min(...durations),
        medianMs: percentile(durations, 50),
        maxMs: Math.max(...durations),
        fallbacks,
      });
    }
    return figures;
  } finally {
    worker.child.kill("SIGTERM");
    rmSync(worker.dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- recall (search)

const SEARCH_APPENDS = 400;
const SEARCHES = 300;
const SEARCH_SESSION_TOKENS = 200_000;

/** A search run's samples: wall times (ms) and the CPU its Worker used, summed over them. */
interface TimedSearches {
  times: number[];
  baseline: number[];
  /** CPU milliseconds the Worker's processes used during the searches, and during the peers. */
  cpu: { search: number; doNothing: number };
}

/**
 * Searches `queries` in turn, each alternated with a request that reaches the same object and does
 * almost nothing there (`DO_NOTHING`), the order flipped every time: the search's own cost is the
 * difference, in wall time and in the CPU the Worker's processes used (from /proc, read around
 * each request and summed; a tick of 10 ms falls in one request or the next, so only the sum
 * over many tells).
 */
async function timedSearches(
  worker: { base: string; child: { pid?: number | undefined } },
  session: string,
  queries: string[],
): Promise<TimedSearches> {
  const { base } = worker;
  const times: number[] = [];
  const baseline: number[] = [];
  const cpu = { search: 0, doNothing: 0 };
  let found = 0;
  const timed = async (kind: keyof typeof cpu, request: () => Promise<unknown>) => {
    const cpuBefore = cpuMs(worker.child.pid);
    const started = performance.now();
    const answer = await request();
    (kind === "search" ? times : baseline).push(performance.now() - started);
    cpu[kind] += cpuMs(worker.child.pid) - cpuBefore;
    return answer;
  };
  const peer = () => timed("doNothing", () => api(base, "GET", DO_NOTHING.path(session)));
  const search = async (query: string) => {
    const answer = (await timed("search", () =>
      api(base, "GET", `/v1/sessions/${session}/search?q=${encodeURIComponent(query)}&limit=10`),
    )) as { results: unknown[] };
    if (answer.results.length > 0) found++;
  };
  for (const [i, query] of queries.entries()) {
    if (i % 2 === 0) {
      await peer();
      await search(query);
    } else {
      await search(query);
      await peer();
    }
  }
  console.log(`  (${found} of ${queries.length} queries found something)`);
  return { times, baseline, cpu };
}

function searchLine({ times, baseline, cpu }: TimedSearches): string {
  const search = percentiles(times);
  const peer = percentiles(baseline);
  const own = ownWork(search, peer);
  const perRequest = (total: number, count: number) => ms(total / count);
  return `p50 ${ms(search.p50)}, p99 ${ms(search.p99)}; a request to the same object doing nothing (${DO_NOTHING.label}), alternated: p50 ${ms(peer.p50)}, p99 ${ms(peer.p99)}; own work (search minus peer): p50 ${ms(own.p50)}, p99 ${ms(own.p99)}; CPU a request (its wrangler dev's processes): search ${perRequest(cpu.search, times.length)}, peer ${perRequest(cpu.doNothing, baseline.length)}, own work ${ms((cpu.search - cpu.doNothing) / times.length)}`;
}

async function searchFigures(): Promise<SearchFigures> {
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
    await timedSearches(indexed, session, queries.slice(0, 20));
    const before = await timedSearches(indexed, session, queries);
    console.log(
      `search latency, ${tokens}-token session of ${messages.length} corpus messages (${SEARCHES} queries of 1-3 words or a tool-call id, limit 10, loopback): ${searchLine(before)} (goal p99 ≤ 20 ms)`,
    );
    await api(indexed.base, "POST", `/v1/sessions/${session}/compact`, {});
    const after = await timedSearches(indexed, session, queries);
    console.log(
      `search latency, the same session after a compaction (results checked against its view): ${searchLine(after)}`,
    );
    return {
      appendWithIndex: percentiles(withIndex),
      appendWithoutIndex: percentiles(without),
      appends: withIndex.length,
      sessionTokens: tokens,
      searches: SEARCHES,
      search: percentiles(before.times),
      doNothing: percentiles(before.baseline),
      cpu: {
        search: before.cpu.search / before.times.length,
        doNothing: before.cpu.doNothing / before.baseline.length,
      },
    };
  } finally {
    for (const worker of [indexed, plain]) {
      worker.child.kill("SIGTERM");
      rmSync(worker.dir, { recursive: true, force: true });
    }
  }
}

const sections = process.argv.slice(2);
if (sections[0] === "profile") {
  const { profileWorker } = await import("./worker-profile.ts");
  await profileWorker(sections.slice(1));
  process.exit(0);
}
if (sections[0] === "compare") {
  const { compare } = await import("./compare/compare.ts");
  process.exit(await compare(sections.slice(1)));
}
const wanted = (name: string) => sections.length === 0 || sections.includes(name);
if (wanted("compaction-cpu")) await compactionCpu();
if (wanted("durable-object")) await durableObjectCompaction();
if (wanted("service")) await workerFigures();
if (wanted("gateway")) await gatewayLatency();
if (wanted("search")) await searchFigures();
if (sections.includes("floor")) await requestFloor();
if (sections.includes("speed")) {
  // Issue 29's figures, each measured as its own section measures it, and the machine's reference
  // points in the same run; the bundle before any Worker starts (see `bundleKiB`).
  const started = performance.now();
  const loadBefore = loadNow();
  const coldStart = coldStartFigures();
  const bundle = bundleKiB({ dir: repositoryRoot });
  console.log(`Worker bundle: ${bundle.toFixed(1)} KiB gzipped`);
  const compactions = await durableObjectCompaction();
  const search = await searchFigures();
  const gateway = await gatewayLatency(ISSUE_GATEWAY_RUN);
  const floor = await requestFloor();
  const figures = { coldStart, bundleKiB: bundle, compactions, search, gateway, floor };
  const load = { before: loadBefore, after: loadNow() };
  console.log(
    `\n${speedSummary({ ...figures, load, seconds: (performance.now() - started) / 1000 })}`,
  );
}
if (sections.includes("cost")) await import("./cost.ts");
if (sections.includes("probes")) await import("./probes.ts");
if (sections.includes("soak")) await import("./soak.ts");
