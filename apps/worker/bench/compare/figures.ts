/**
 * @module bench/compare/figures
 * The figures a comparison takes, each from both checkouts in the same round, interleaved request
 * by request (or process by process) with the order of the two flipped every round, so that a
 * machine busier in one moment than the next weighs on both alike. They are the cheap ones of
 * `pnpm bench` that cover the hot paths: the engine's cold import and first count, the Worker
 * bundle's gzipped size, an append to and a search of a 200k-token session, a forced compaction
 * through the Durable Object, and a gateway turn with a 150k-token history. Each request figure is
 * taken twice: its wall time on loopback and the CPU time the checkout's `wrangler dev` and
 * workerd used per request (from /proc), the work itself, which a busy machine inflates less.
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatMessage } from "@condense/core";
import { gzippedKiB } from "../../scripts/bundle-budget.ts";
import {
  agentHistory,
  CONTEXT_WINDOW,
  HISTORY_TOKENS,
  type InstantUpstream,
  PROTOCOLS,
} from "../gateway-latency.ts";
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
  KEY,
  searchQueries,
} from "../harness.ts";
import { checkoutsWithout } from "./missing-route.ts";
import { retriedOnce } from "./retry.ts";
import type { Tree } from "./trees.ts";

/** A checkout and the `wrangler dev` serving its Worker. */
export interface Subject {
  tree: Tree;
  base: string;
  pid: number | undefined;
}

/** Where a figure's samples go: a metric's value, for one checkout. */
export type Record = (metric: string, tree: Tree["name"], value: number) => void;

export interface Figure {
  /** Its name on the command line (`--figures`). */
  name: string;
  /** Once, before the rounds (what its requests need: sessions built, the isolate warm). */
  setup?(subjects: Subject[], record: Record): Promise<void>;
  /** One round: the two subjects in this order, interleaved within. */
  round?(subjects: Subject[], round: number, record: Record): Promise<void>;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 200));

/**
 * Runs `task` for the two subjects in turn, `count` times each, the order flipped every time,
 * and records each call's wall time under `metric` and the CPU time the subject's Worker used
 * per call over the whole batch (work that runs after the response included) under `metric, CPU`.
 */
async function interleaved(
  subjects: Subject[],
  count: number,
  metric: string,
  record: Record,
  task: (subject: Subject, i: number) => Promise<unknown>,
  afterBoth: (i: number) => void = () => {},
): Promise<void> {
  const cpuBefore = subjects.map((subject) => cpuMs(subject.pid));
  for (let i = 0; i < count; i++) {
    const order = i % 2 === 0 ? subjects : [...subjects].reverse();
    for (const subject of order) {
      const started = await retriedOnce(`${metric} (${subject.tree.name})`, () => task(subject, i));
      record(metric, subject.tree.name, performance.now() - started);
    }
    afterBoth(i);
  }
  await settle();
  for (const [s, subject] of subjects.entries()) {
    const used = cpuMs(subject.pid) - (cpuBefore[s] ?? Number.NaN);
    if (Number.isFinite(used)) record(`${metric}, CPU`, subject.tree.name, used / count);
  }
}

// ------------------------------------------------------------------------------- cold import

const COLD_PROCESSES = 6;
const COLD_SCRIPT = `const TEXT = "Count me: the first message of a session.";
  const cpu = process.cpuUsage(); const start = performance.now();
  const m = await import("@condense/core"); m.countTokens(TEXT, "gpt-4o");
  const wall = performance.now() - start; const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ wall, cpu: (used.user + used.system) / 1000 }));`;

/** A fresh Node process importing the checkout's built engine and counting one short text. */
function coldImport(tree: Tree): { wall: number; cpu: number } {
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", COLD_SCRIPT], {
    cwd: join(tree.dir, "packages/core"),
    encoding: "utf8",
  });
  if (child.status !== 0) throw new Error(`cold import in ${tree.dir}: ${child.stderr}`);
  return JSON.parse(child.stdout) as { wall: number; cpu: number };
}

const coldStart: Figure = {
  name: "cold-import",
  async round(subjects, _round, record) {
    for (let i = 0; i < COLD_PROCESSES; i++) {
      const order = i % 2 === 0 ? subjects : [...subjects].reverse();
      for (const { tree } of order) {
        const sample = coldImport(tree);
        record("import @condense/core + first count", tree.name, sample.wall);
        record("import @condense/core + first count, CPU", tree.name, sample.cpu);
      }
    }
  },
};

// ------------------------------------------------------------------------------- bundle

/**
 * The gzipped size of the Worker's modules, as `wrangler deploy --dry-run` writes them. Taken
 * before the Workers start: the dry run rebuilds the inspector's assets, which a running
 * `wrangler dev` watches and reloads on, cutting the requests in flight.
 */
export function bundleKiB(tree: Pick<Tree, "dir">): number {
  const worker = join(tree.dir, "apps/worker");
  const outdir = mkdtempSync(join(tmpdir(), "condense-bundle-"));
  try {
    const wrangler = spawnSync(
      join(worker, "node_modules/.bin/wrangler"),
      ["deploy", "--dry-run", "--outdir", outdir],
      { cwd: worker, encoding: "utf8" },
    );
    if (wrangler.status !== 0) throw new Error(`wrangler in ${worker}: ${wrangler.stderr}`);
    return gzippedKiB(outdir);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

// ------------------------------------------------------------------------------- append, search

const SESSION_TOKENS = 200_000;
const APPENDS_PER_ROUND = 12;
/**
 * Searches (and as many peers) a round; `BENCH_COMPARE_SEARCHES` takes more: a search's own CPU is
 * a few ms of a request's ~25 under `wrangler dev`, and /proc counts in ticks of 10 ms, so a batch
 * of 12 tells it to within about 0.8 ms a request only.
 */
const SEARCHES_PER_ROUND = Number(process.env.BENCH_COMPARE_SEARCHES ?? 12);
const session200k = "compare-200k";
let stream: ChatMessage[] = [];
let queries: string[] = [];
/**
 * Whether both checkouts answer the searches' peer: a base older than its route (`DO_NOTHING`)
 * answers 404, and the peer, a reference that gates nothing, is then left out rather than the run.
 */
let peerAnswered = true;

/** Both Workers get the same 200k-token session of corpus transcripts, and the same warm-up. */
const session: Figure = {
  name: "session",
  async setup(subjects) {
    const { transcripts } = corpusTranscripts();
    const messages = corpusSession(transcripts, SESSION_TOKENS);
    // The appends measured carry the messages that follow the session's, one per request.
    stream = transcripts.flat().slice(0, 400);
    queries = searchQueries(messages, 200);
    await Promise.all(subjects.map((subject) => appendAll(subject.base, session200k, messages)));
    for (const subject of subjects) {
      for (const query of queries.slice(0, 5)) await search(subject, query);
      for (const message of stream.slice(0, 5)) await append(subject, message);
    }
    const missing = await checkoutsWithout(
      subjects.map(({ base, tree }) => ({ base, name: `the ${tree.name} (${tree.label})` })),
      DO_NOTHING.path(session200k),
      KEY,
    );
    peerAnswered = missing.length === 0;
    if (!peerAnswered)
      console.log(
        `peer left out: ${missing.join(" and ")} has no ${DO_NOTHING.label} (it answered 404), so the searches are compared without it`,
      );
  },
};

const append = (subject: Subject, message: ChatMessage | undefined) =>
  api(subject.base, "POST", `/v1/sessions/${session200k}/messages`, {
    model: "gpt-4o",
    messages: [message ?? { role: "user", content: "go on" }],
  });

const search = (subject: Subject, query: string | undefined) =>
  api(
    subject.base,
    "GET",
    `/v1/sessions/${session200k}/search?q=${encodeURIComponent(query ?? "build")}&limit=10`,
  );

const appends: Figure = {
  name: "append",
  async round(subjects, round, record) {
    await interleaved(
      subjects,
      APPENDS_PER_ROUND,
      "append to a 200k-token session",
      record,
      (subject, i) => append(subject, stream[(5 + round * APPENDS_PER_ROUND + i) % stream.length]),
    );
  },
};

/**
 * Searches, then as many do-nothing requests to the same object (`DO_NOTHING`): the searches'
 * peer in the same round, so a search's own work reads as the difference on each side.
 */
const searches: Figure = {
  name: "search",
  async round(subjects, round, record) {
    await interleaved(
      subjects,
      SEARCHES_PER_ROUND,
      "search a 200k-token session",
      record,
      (subject, i) =>
        search(subject, queries[(5 + round * SEARCHES_PER_ROUND + i) % queries.length]),
    );
    if (!peerAnswered) return;
    await interleaved(
      subjects,
      SEARCHES_PER_ROUND,
      "peer: a do-nothing request to the same object",
      record,
      (subject) => api(subject.base, "GET", DO_NOTHING.path(session200k)),
    );
  },
};

// ------------------------------------------------------------------------------- compaction

const COMPACTIONS_PER_ROUND = 2;

/**
 * Forced compactions through the Durable Object: each round, fresh ~119k-token agent sessions
 * built by appends on both Workers (the background compaction they schedule waits an hour), then
 * `POST /compact` (deterministic summarizer) on each in turn: its wall time, and the event's
 * `durationMs` (snapshot to commit).
 */
const compaction: Figure = {
  name: "compaction",
  async round(subjects, round, record) {
    const ids = Array.from(
      { length: COMPACTIONS_PER_ROUND },
      (_, i) => `compare-compact-${round}-${i}`,
    );
    for (const [i, id] of ids.entries()) {
      const messages = agentSession(round * COMPACTIONS_PER_ROUND + i + 1, ISSUE_SESSION_CHARS);
      for (const subject of subjects) {
        for (let from = 0; from < messages.length; from += APPEND_BATCH) {
          await api(subject.base, "POST", `/v1/sessions/${id}/messages`, {
            model: "gpt-4o",
            messages: messages.slice(from, from + APPEND_BATCH),
          });
        }
      }
    }
    await settle();
    await interleaved(
      subjects,
      COMPACTIONS_PER_ROUND,
      "forced compaction of a ~119k-token session through the Durable Object",
      record,
      async (subject, i) => {
        await api(subject.base, "POST", `/v1/sessions/${ids[i]}/compact`, {});
      },
    );
    for (const subject of subjects) {
      for (const id of ids) {
        const { compactions } = (await api(
          subject.base,
          "GET",
          `/v1/sessions/${id}/compactions`,
        )) as {
          compactions: Array<{ durationMs: number | null }>;
        };
        const duration = compactions.at(-1)?.durationMs;
        if (typeof duration === "number")
          record(
            "compaction durationMs (snapshot to commit, in the object)",
            subject.tree.name,
            duration,
          );
      }
    }
  },
};

// ------------------------------------------------------------------------------- gateway turn

const TURNS_PER_ROUND = 8;
const protocol = PROTOCOLS[0];
let history: ChatMessage[] = [];

/** One Chat Completions turn through `/v1/gateway/bench` with a session, the history sent whole. */
async function turn(subject: Subject): Promise<void> {
  if (protocol === undefined) throw new Error("no protocol to send");
  const response = await fetch(`${subject.base}/v1/gateway/bench${protocol.path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...protocol.auth(KEY),
      "X-Condense-Session": "compare-gateway",
      "X-Condense-Context-Window": String(CONTEXT_WINDOW),
    },
    body: JSON.stringify(protocol.body(history, false)),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`gateway turn: ${response.status} ${text.slice(0, 300)}`);
}

/**
 * Chat Completions turns through `/v1/gateway/bench` with a session, against an upstream that
 * answers at once; after each turn of both, the agent keeps the answer and adds its next message,
 * so both Workers see the same histories.
 */
export function gatewayTurn(upstream: InstantUpstream): Figure {
  let turns = 0;
  const next = () => {
    history.push({ role: "assistant", content: upstream.answer });
    history.push({ role: "user", content: `Continue with step ${turns + 1}.` });
    upstream.answer = `Noted, step ${++turns}.`;
  };
  return {
    name: "gateway",
    async setup(subjects) {
      history = agentHistory(HISTORY_TOKENS);
      for (let i = 0; i < 3; i++) {
        for (const subject of subjects)
          await retriedOnce("gateway warm-up turn", () => turn(subject));
        next();
      }
    },
    async round(subjects, _round, record) {
      const metric = `gateway turn, ${HISTORY_TOKENS / 1000}k-token history`;
      await interleaved(subjects, TURNS_PER_ROUND, metric, record, turn, next);
    },
  };
}

export const FIGURES: Figure[] = [coldStart, session, appends, searches, compaction];
