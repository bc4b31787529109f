/**
 * @module bench/cost
 * `pnpm bench cost` (`node bench/cost.ts [--label NAME] [--corpus DIR] [--only SUBSTRING]
 * [--windows 32000,128000]`): the bill, not the token count. Replays every corpus transcript
 * (`--corpus`, else ../shared/corpus/normalized beside the repository when present, else the
 * engine's fixtures) through the gateway under
 * `wrangler dev`, a session per transcript and window (32k and 128k), and bills the requests
 * the gateway forwarded under Anthropic's, GPT-5's and gpt-4o's prompt caching, against the
 * whole history, truncate-oldest and compact-at-95 on the same turns (`bench/cost/bills`).
 * Prints a table per window and pricing with the medians and the two checks (Condense
 * ≤ 0.8 × compact-at-95 where a baseline compacted, ≤ 1.05 × the whole history where it
 * fits), and writes `apps/docs/bench-results/reports/cost-bench-<label>.{json,md}` with the date and the
 * machine (the docs site shows the report under Benchmarks).
 * The corpus, the server and the replay are `bench/replay`'s, shared with `bench/probes`.
 * Needs `pnpm --filter @condense/core build`. Every request goes to 127.0.0.1.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { countTokens } from "@condense/core";
import { totalTokens } from "./cost/baselines.ts";
import {
  BILLING_MODEL,
  benchMessage,
  billBaselines,
  billForwarded,
  type PolicyBill,
} from "./cost/bills.ts";
import { PRICINGS } from "./cost/pricings.ts";
import { formatReport, type ReplayRecord } from "./cost/report.ts";
import { argument, loadCorpus, replaySession, repository } from "./replay/corpus.ts";
import { replayThroughGateway } from "./replay/gateway-replay.ts";
import { startReplayServer } from "./replay/replay-server.ts";

const label = argument("--label") ?? "run";
const windows = (argument("--windows") ?? "32000,128000").split(",").map(Number);
const { source, transcripts } = loadCorpus();
const server = await startReplayServer();
const { target } = server;
const records: ReplayRecord[] = [];
const started = Date.now();
try {
  for (const window of windows) {
    for (const transcript of transcripts) {
      const session = replaySession(window, transcript.name);
      const replay = await replayThroughGateway(target, {
        session,
        messages: transcript.messages,
        contextWindow: window,
        model: BILLING_MODEL,
      });
      const last = replay.histories.at(-1) ?? [];
      const bills: ReplayRecord["bills"] = {};
      for (const pricing of PRICINGS) {
        const condense: PolicyBill = {
          ...billForwarded(replay.forwarded, pricing),
          compactions: replay.compactions.length,
        };
        const headMarked: PolicyBill = {
          ...billForwarded(replay.forwarded, pricing, { headMark: true }),
          compactions: replay.compactions.length,
        };
        bills[pricing.name] = {
          condense,
          "condense + head mark": headMarked,
          ...(await billBaselines(replay.histories, window, pricing)),
        };
      }
      records.push({
        transcript: transcript.name,
        window,
        turns: replay.histories.length,
        wholeTokens: totalTokens(last.map(benchMessage)),
        generations: [...replay.generations],
        compactions: replay.compactions.map((event) => ({
          tier: event.tier,
          tokensBefore: event.tokensBefore,
          tokensAfter: event.tokensAfter,
          summaryTokens: event.summary === null ? 0 : countTokens(event.summary, BILLING_MODEL),
        })),
        bills,
        replayMs: Math.round(replay.ms),
      });
      console.error(
        `${window} ${transcript.name}: ${replay.histories.length} turns, ${replay.compactions.length} compactions, ${(replay.ms / 1000).toFixed(1)} s (${((Date.now() - started) / 1000).toFixed(0)} s in all)`,
      );
    }
  }
} finally {
  await server.stop();
}

const machine = `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB), Node ${process.version}`;
const report = formatReport({
  label,
  date: new Date().toISOString(),
  machine,
  source: source.replace(`${repository}/`, ""),
  pricings: PRICINGS,
  records,
});
console.log(report);
const out = join(repository, "apps/docs/bench-results/reports");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, `cost-bench-${label}.md`), report);
// Indented, for readable diffs (bench-results is outside biome's files: nothing reformats it).
writeFileSync(
  join(out, `cost-bench-${label}.json`),
  `${JSON.stringify({ label, date: new Date().toISOString(), machine, pricings: PRICINGS, records }, null, 2)}\n`,
);
