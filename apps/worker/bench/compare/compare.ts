/**
 * @module bench/compare/compare
 * `pnpm bench compare [--base <ref> | --base-dir <checkout>] [--rounds <n>] [--figures a,b] [--keep]`: the performance
 * gate. Builds the base (by default the merge base with main) in a temporary git worktree, starts
 * a `wrangler dev` for each checkout, takes the same figures (`bench/compare/figures`) from both
 * in every round, interleaved, prints each metric's medians and the ratio change/base, and exits
 * with 1 when a gated metric is slower than its noise margin allows (`bench/compare/verdict`).
 * `--keep` keeps the base's worktree for the next run (it is found again by its commit);
 * `--base-dir` takes another checkout, as it is on disk, for the base (built, never removed).
 */

import { rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { startInstantUpstream, UPSTREAM_KEY } from "../gateway-latency.ts";
import { repositoryRoot, startWorker } from "../harness.ts";
import { bundleKiB, FIGURES, gatewayTurn, type Record, type Subject } from "./figures.ts";
import { baseTree, buildPackages, changeTree, resolveBase, type Tree } from "./trees.ts";
import { formatRows, type Samples, verdicts } from "./verdict.ts";

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at < 0 ? undefined : args[at + 1];
}

export async function compare(args: string[]): Promise<number> {
  const rounds = Number(option(args, "--rounds") ?? 5);
  const wanted = option(args, "--figures")?.split(",");
  const keep = args.includes("--keep");
  const repo = repositoryRoot;
  const baseDir = option(args, "--base-dir");
  const { commit, how } =
    baseDir === undefined
      ? resolveBase(repo, option(args, "--base"))
      : { commit: changeTree(baseDir).commit, how: `the checkout at ${baseDir}, as it is` };
  const change = changeTree(repo);
  console.log(
    `# pnpm bench compare — base ${commit.slice(0, 10)} (${how}) vs change ${change.label}; ${rounds} rounds, interleaved`,
  );
  console.log(
    `machine: ${cpus()[0]?.model ?? "unknown CPU"}, ${cpus().length} cores, Node ${process.version}, load average ${loadavg()
      .map((value) => value.toFixed(1))
      .join(" ")}`,
  );
  const started = performance.now();
  // This checkout was built by `bench/build-first` (`pnpm bench` runs it before the bench): its
  // engine is imported above, so it cannot be built here, after the import.
  if (baseDir !== undefined) buildPackages(baseDir);
  const base =
    baseDir === undefined
      ? baseTree(repo, commit)
      : { ...changeTree(baseDir), name: "base" as const, remove: () => {} };
  // A base built before (--keep) is built again through the cache: its generated sources too.
  if (baseDir === undefined) buildPackages(base.dir);
  console.log(`both checkouts built (${((performance.now() - started) / 1000).toFixed(0)} s)`);

  const trees = [base, change];
  const samples = new Map<string, Samples>();
  const record: Record = (metric, tree, value) => {
    const entry = samples.get(metric) ?? { base: [], change: [] };
    entry[tree].push(value);
    samples.set(metric, entry);
  };
  if (wanted === undefined || wanted.includes("bundle"))
    for (const tree of trees) record("Worker bundle, gzipped (KiB)", tree.name, bundleKiB(tree));

  // The cold import needs no Worker: with only it (and the bundle) asked for, none is started.
  if (wanted?.every((name) => name === "cold-import" || name === "bundle") === true) {
    const cold = FIGURES.find((figure) => figure.name === "cold-import");
    if (wanted.includes("cold-import"))
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? trees : [...trees].reverse();
        const subjects = order.map((tree) => ({ tree, base: "", pid: undefined }));
        await cold?.round?.(subjects, round, record);
      }
    if (!keep) base.remove();
    return report(
      samples,
      rounds,
      started,
      commit === change.commit && !change.label.includes(" "),
    );
  }
  const upstream = await startInstantUpstream();
  const vars = {
    COMPACTION_DELAY_MS: "3600000",
    GATEWAY_UPSTREAMS: `bench=${upstream.url}`,
    GATEWAY_KEY_BENCH: UPSTREAM_KEY,
  };
  const workers = await Promise.allSettled(
    // Each with its checkout's configuration, without the rate limit binding (`unlimitedConfig`).
    trees.map((tree) => startWorker(vars, undefined, undefined, join(tree.dir, "apps/worker"))),
  );
  try {
    const subjects: Subject[] = workers.map((outcome, i) => {
      if (outcome.status === "rejected") throw outcome.reason;
      const tree = trees[i] as Tree;
      return { tree, base: outcome.value.base, pid: outcome.value.child.pid };
    });
    const figures = [...FIGURES, gatewayTurn(upstream)].filter(
      (figure) => wanted === undefined || wanted.includes(figure.name) || figure.name === "session",
    );
    for (const figure of figures) {
      const at = performance.now();
      await figure.setup?.(subjects, record);
      if (figure.setup !== undefined)
        console.log(`${figure.name}: set up (${((performance.now() - at) / 1000).toFixed(0)} s)`);
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? subjects : [...subjects].reverse();
      for (const figure of figures) await figure.round?.(order, round, record);
      process.stdout.write(`round ${round + 1} of ${rounds} done\n`);
    }
  } finally {
    for (const outcome of workers)
      if (outcome.status === "fulfilled") {
        outcome.value.child.kill("SIGTERM");
        rmSync(outcome.value.dir, { recursive: true, force: true });
      }
    upstream.close();
    if (!keep) base.remove();
  }

  return report(samples, rounds, started, commit === change.commit && !change.label.includes(" "));
}

/** Prints the table and the verdict; the exit code: 1 when a gated metric is slower. */
function report(
  samples: ReadonlyMap<string, Samples>,
  rounds: number,
  started: number,
  identical: boolean,
): number {
  const rows = verdicts(samples, rounds);
  console.log(`\n${formatRows(rows)}`);
  console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s in all)`);
  const slower = rows.filter((row) => row.verdict === "slower");
  if (identical)
    console.log(
      "the base is the change's own commit: these ratios are the noise between identical checkouts",
    );
  if (slower.length > 0) {
    console.log(
      `\nslower than the base past the noise margin: ${slower.map((row) => row.metric).join("; ")}`,
    );
    return 1;
  }
  console.log("\nno gated figure is slower than the base past its noise margin");
  return 0;
}
