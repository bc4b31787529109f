/**
 * @module bench/speed
 * `pnpm bench speed`: issue 29's six figures in one run, each measured the way its own section
 * measures it, beside the machine's reference points taken in the same run (a shared machine's
 * speed varies several-fold from day to day, so a figure is read against its peer):
 * - the engine's cold start: `node --expose-gc --import tsx bench/bench.ts --cold-start` in
 *   packages/core (import + first count against gpt-tokenizer, a fresh process per sample);
 * - the Worker bundle gzipped, as the build's budget measures it (`scripts/bundle-budget.ts`);
 * - the forced compaction of the ~119k-token session through the Durable Object (`durable-object`);
 * - append and search at 200k+ tokens, with a do-nothing request to the same object alternated
 *   (`search`; `DO_NOTHING` in the harness), and the search's own work over it;
 * - a gateway turn over the pass-through, 100 Chat Completions turns (`gateway`);
 * - the request floor under `wrangler dev` (`floor`).
 * It ends with one table under `## Speed figures` (figure, value, peer, goal, met), which the
 * docs' measured-figures page is generated from (`apps/docs/scripts/figures.ts`), and nothing
 * else after it but the run's load line.
 */

import { spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { join } from "node:path";
import { BUNDLE_BUDGET_KIB } from "../scripts/bundle-budget.ts";
import type { GatewayFigures, GatewayRun } from "./gateway-latency.ts";
import { DO_NOTHING, type Percentiles, repositoryRoot } from "./harness.ts";
import type { FloorFigures } from "./request-floor.ts";

/** Issue 29's gateway figure: 100 Chat Completions turns, not streamed. */
export const ISSUE_GATEWAY_RUN: GatewayRun = { turns: 100, formats: ["openai"], streamed: false };

/** Issue 29's goals. */
export const GOALS = {
  coldStartMs: 40,
  coldStartRatio: 0.25,
  bundleKiB: BUNDLE_BUDGET_KIB,
  compactionMs: 80,
  gatewayAdded: { p50: 15, p99: 40 },
  searchP99Ms: 20,
  /** The previous round's append figures, to be back to. */
  append: { p50: 9.5, p99: 17.4 },
};

/** Import + first count, medians over fresh processes (milliseconds). */
export interface ColdStartFigures {
  runs: number;
  condenseMs: number;
  gptTokenizerMs: number;
}

/** A size's compactions through the Durable Object (`node bench/bench.ts durable-object`). */
export interface ObjectCompactionFigures {
  size: "issue" | "198k";
  sessions: number;
  tokensMin: number;
  tokensMax: number;
  minMs: number;
  medianMs: number;
  maxMs: number;
  fallbacks: number;
}

/** Append and search at 200k+ tokens (`node bench/bench.ts search`). */
export interface SearchFigures {
  appendWithIndex: Percentiles;
  appendWithoutIndex: Percentiles;
  appends: number;
  sessionTokens: number;
  searches: number;
  search: Percentiles;
  /** The request to the same object doing nothing (`DO_NOTHING`), alternated with the searches. */
  doNothing: Percentiles;
  /** CPU milliseconds a request, the Worker's processes (from /proc): a search, and its peer. */
  cpu: { search: number; doNothing: number };
}

/**
 * A request's own work over its peer's: each percentile minus the peer's (a difference of
 * percentiles, not a percentile of differences: the two are sampled alternately, not in pairs).
 */
export function ownWork(request: Percentiles, peer: Percentiles): Percentiles {
  return { p50: request.p50 - peer.p50, p99: request.p99 - peer.p99 };
}

export interface SpeedFigures {
  coldStart: ColdStartFigures;
  bundleKiB: number;
  compactions: ObjectCompactionFigures[];
  search: SearchFigures;
  gateway: GatewayFigures[];
  floor: FloorFigures[];
  /** The 1-minute load average when the run started and when it ended. */
  load: { before: number; after: number };
  seconds: number;
}

/** One row of the summary. */
export interface SpeedRow {
  figure: string;
  value: string;
  peer: string;
  goal: string;
  met: "met" | "not met" | "reference";
}

/**
 * The medians of `@condense/core` and gpt-tokenizer in the engine's cold-start table (its rows are
 * `library  min / median / max  …`, right-aligned); throws when a row is missing.
 */
export function parseColdStart(output: string): ColdStartFigures {
  const median = (library: RegExp) => {
    for (const line of output.split("\n")) {
      const row = /^\s*(.+?) {2,}([\d,.]+) \/ ([\d,.]+) \/ ([\d,.]+)/.exec(line);
      if (row?.[1] !== undefined && library.test(row[1]))
        return Number(row[3]?.replaceAll(",", ""));
    }
    throw new Error(`the engine's cold-start table has no row for ${library}:\n${output}`);
  };
  const runs = /\((\d+) runs\)/.exec(output)?.[1];
  return {
    runs: Number(runs ?? Number.NaN),
    condenseMs: median(/^@condense\/core$/),
    gptTokenizerMs: median(/^gpt-tokenizer\b/),
  };
}

/** The engine's cold-start section, run as `pnpm bench` runs it, its output shown as it is. */
export function coldStartFigures(): ColdStartFigures {
  const child = spawnSync(
    process.execPath,
    ["--expose-gc", "--import", "tsx", "bench/bench.ts", "--cold-start"],
    { cwd: join(repositoryRoot, "packages/core"), encoding: "utf8" },
  );
  process.stdout.write(child.stdout);
  if (child.status !== 0) throw new Error(`the engine's cold-start bench failed:\n${child.stderr}`);
  return parseColdStart(child.stdout);
}

/** Rounded as the sections' own lines round (`toFixed`), with thousands separators. */
const number = (value: number, digits = 1) =>
  Number(value.toFixed(digits)).toLocaleString("en-US", {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
const tokens = (min: number, max: number) =>
  min === max
    ? min.toLocaleString("en-US")
    : `${min.toLocaleString("en-US")}–${max.toLocaleString("en-US")}`;
const ms = (value: number) => `${number(value)} ms`;
const p = ({ p50, p99 }: Percentiles) => `p50 ${ms(p50)}, p99 ${ms(p99)}`;
const verdict = (met: boolean): SpeedRow["met"] => (met ? "met" : "not met");

/** The summary's rows: issue 29's figures, then the machine's reference points. */
export function speedRows(figures: SpeedFigures): SpeedRow[] {
  const { coldStart, search } = figures;
  const ratio = coldStart.condenseMs / coldStart.gptTokenizerMs;
  const issue = figures.compactions.find((size) => size.size === "issue");
  const large = figures.compactions.find((size) => size.size === "198k");
  const gateway = figures.gateway[0];
  const floor = (request: FloorFigures["request"]) =>
    figures.floor.find((figure) => figure.request === request);
  const rows: SpeedRow[] = [
    {
      figure: `cold start: import + first count, median of ${coldStart.runs} fresh processes`,
      value: ms(coldStart.condenseMs),
      peer: `gpt-tokenizer ${ms(coldStart.gptTokenizerMs)}: ${ratio.toFixed(3)}×`,
      goal: `≤ ${GOALS.coldStartMs} ms or ≤ ${GOALS.coldStartRatio}× gpt-tokenizer`,
      met: verdict(coldStart.condenseMs <= GOALS.coldStartMs || ratio <= GOALS.coldStartRatio),
    },
    {
      figure: "Worker bundle, gzipped (wrangler deploy --dry-run, the build's budget)",
      value: `${number(figures.bundleKiB)} KiB (${number(figures.bundleKiB / 1024, 3)} MiB)`,
      peer: "none needed: deterministic",
      goal: `≤ ${number(GOALS.bundleKiB)} KiB (1.2 MiB)`,
      met: verdict(figures.bundleKiB <= GOALS.bundleKiB),
    },
  ];
  if (issue !== undefined)
    rows.push({
      figure: `forced compaction of a ${tokens(issue.tokensMin, issue.tokensMax)}-token session through the Durable Object, durationMs median of ${issue.sessions}`,
      value: ms(issue.medianMs),
      peer:
        large === undefined
          ? "none"
          : `a ${tokens(large.tokensMin, large.tokensMax)}-token session: ${ms(large.medianMs)}`,
      goal: `≤ ${GOALS.compactionMs} ms`,
      met: verdict(issue.medianMs <= GOALS.compactionMs),
    });
  if (gateway !== undefined)
    rows.push({
      figure: `gateway turn, ${gateway.historyTokens.toLocaleString("en-US")}-token history, added over the pass-through Worker turn by turn (${gateway.turns} Chat Completions turns)`,
      value: `${p(gateway.added)}; CPU added ${ms(gateway.cpuGateway - gateway.cpuPassThrough)} a turn`,
      peer: `the pass-through: ${p(gateway.passThrough)}, CPU ${ms(gateway.cpuPassThrough)} a turn`,
      goal: `≤ ${GOALS.gatewayAdded.p50} ms p50, ≤ ${GOALS.gatewayAdded.p99} ms p99`,
      met: verdict(
        gateway.added.p50 <= GOALS.gatewayAdded.p50 && gateway.added.p99 <= GOALS.gatewayAdded.p99,
      ),
    });
  rows.push(
    {
      figure: `search, ${search.sessionTokens.toLocaleString("en-US")}-token session, ${search.searches} queries`,
      value: `${p(search.search)}; own work (minus the peer) ${p(ownWork(search.search, search.doNothing))}, CPU ${ms(search.cpu.search - search.cpu.doNothing)} a search`,
      peer: `a request to the same object doing nothing (${DO_NOTHING.label}), alternated: ${p(search.doNothing)}, CPU ${ms(search.cpu.doNothing)} a request`,
      goal: `p99 ≤ ${GOALS.searchP99Ms} ms`,
      met: verdict(search.search.p99 <= GOALS.searchP99Ms),
    },
    {
      figure: `append, one corpus message per request with the search index (${search.appends})`,
      value: p(search.appendWithIndex),
      peer: `indexing off, alternated: ${p(search.appendWithoutIndex)}`,
      goal: `back to the previous round's p50 ${GOALS.append.p50} ms, p99 ${GOALS.append.p99} ms`,
      met: verdict(
        search.appendWithIndex.p50 <= GOALS.append.p50 &&
          search.appendWithIndex.p99 <= GOALS.append.p99,
      ),
    },
  );
  const references: Array<[FloorFigures["request"], string]> = [
    ["hello world", "reference: a hello-world Worker under wrangler dev"],
    ["healthz", "reference: Condense's /healthz"],
    [
      "session object",
      `reference: a do-nothing request to a session's object (${DO_NOTHING.label})`,
    ],
  ];
  for (const [request, figure] of references) {
    const found = floor(request);
    if (found !== undefined)
      rows.push({
        figure,
        value: p(found),
        peer: `CPU ${ms(found.cpu)} a request`,
        goal: "none",
        met: "reference",
      });
  }
  rows.push({
    figure: `reference: gpt-tokenizer's cold start, median of ${coldStart.runs} fresh processes`,
    value: ms(coldStart.gptTokenizerMs),
    peer: "none",
    goal: "none",
    met: "reference",
  });
  return rows;
}

/** The summary block: `## Speed figures`, a Markdown table, and the run's load line. */
export function speedSummary(figures: SpeedFigures): string {
  const cell = (text: string) => text.replaceAll("|", "/");
  const rows = speedRows(figures).map(
    (row) => `| ${[row.figure, row.value, row.peer, row.goal, row.met].map(cell).join(" | ")} |`,
  );
  return [
    "## Speed figures",
    "",
    "| figure | value | peer in the same run | goal (issue 29) | met |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    "",
    `load average (1 min): ${number(figures.load.before)} before the run, ${number(figures.load.after)} after; the run took ${Math.round(figures.seconds)} s`,
  ].join("\n");
}

/** The 1-minute load average now. */
export const loadNow = () => loadavg()[0] ?? Number.NaN;
