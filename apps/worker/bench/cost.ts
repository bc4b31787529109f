/**
 * @module bench/cost
 * `pnpm bench cost` (`node bench/cost.ts [--label NAME] [--corpus DIR] [--only SUBSTRING]
 * [--windows 32000,128000] [--pricings Anthropic,GPT-5,gpt-4o]`): the bill, not the token count.
 * Replays every corpus transcript (`--corpus`, else ../shared/corpus/normalized beside the
 * repository when present, else the engine's fixtures) through the gateway under `wrangler dev`,
 * a session per transcript, window (32k and 128k) and pricing, as that pricing's model
 * (claude-sonnet-4-5, gpt-5, gpt-4o: the cost policy decides at the prices it is billed at), and
 * bills the requests the gateway forwarded under that pricing's prompt caching, against the
 * whole history, truncate-oldest and compact-at-95 on the same turns (`bench/cost/bills`),
 * counted with the engine's tokenizer for that model.
 * Prints a table per window and pricing with the medians and the issue's two checks (Condense
 * ≤ 0.8 × compact-at-95 where a baseline compacted, ≤ 1.05 × the whole history where it
 * fits), and writes `apps/docs/bench-results/reports/cost-bench-<label>.{json,md}` with the date and the
 * machine (the docs site shows the report under Benchmarks).
 * The corpus, the server and the replay are `bench/replay`'s, shared with `bench/probes`.
 * Needs `pnpm --filter @condense/core build`. Every request goes to 127.0.0.1.
 * `--from apps/docs/bench-results/reports/cost-bench-X.json` replays nothing: it formats that
 * report's stored replays again with this checkout's tables (a column added after the run), under
 * `--label`, keeping the stored date and machine.
 */

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { type CachePricing, type ChatMessage, countTokens } from "@condense/core";
import { totalTokens } from "./cost/baselines.ts";
import { benchMessage, billBaselines, billForwarded, type PolicyBill } from "./cost/bills.ts";
import { PRICINGS } from "./cost/pricings.ts";
import type { PricedReplay, ReplayRecord } from "./cost/replay-record.ts";
import { formatReport } from "./cost/report.ts";
import { argument, loadCorpus, replaySession, repository } from "./replay/corpus.ts";
import { replayThroughGateway } from "./replay/gateway-replay.ts";
import { startReplayServer } from "./replay/replay-server.ts";

const label = argument("--label") ?? "run";
const windows = (argument("--windows") ?? "32000,128000").split(",").map(Number);
const chosen = argument("--pricings")?.split(",");
const pricings = PRICINGS.filter(
  (pricing) => chosen === undefined || chosen.includes(pricing.name),
);
if (pricings.length === 0) {
  throw new Error(
    `--pricings: none of ${chosen?.join(", ")} is one of ${PRICINGS.map((p) => p.name).join(", ")}`,
  );
}
/** Replays the corpus through the gateway: one record per transcript and window. */
async function replayCorpus(): Promise<{ source: string; records: ReplayRecord[] }> {
  const { source, transcripts } = loadCorpus();
  const server = await startReplayServer();
  const { target } = server;
  const records: ReplayRecord[] = [];
  const started = Date.now();
  try {
    for (const window of windows) {
      for (const transcript of transcripts) {
        const replays: Record<string, PricedReplay> = {};
        const bills: ReplayRecord["bills"] = {};
        let histories: ChatMessage[][] = [];
        for (const pricing of pricings) {
          const model = pricing.model;
          const replay = await replayThroughGateway(target, {
            session: replaySession(window, `${model}-${transcript.name}`),
            messages: transcript.messages,
            contextWindow: window,
            model,
          });
          histories = replay.histories;
          const last = replay.histories.at(-1) ?? [];
          const compactions = replay.compactions.length;
          bills[pricing.name] = {
            condense: {
              ...billForwarded(replay.forwarded, pricing, { tokensModel: model }),
              compactions,
            },
            "condense + head mark": {
              ...billForwarded(replay.forwarded, pricing, { headMark: true, tokensModel: model }),
              compactions,
            } satisfies PolicyBill,
            ...(await billBaselines(replay.histories, window, pricing, model)),
          };
          replays[pricing.name] = {
            model,
            wholeTokens: totalTokens(last.map((message) => benchMessage(message, model))),
            generations: [...replay.generations],
            compactions: replay.compactions.map((event) => ({
              tier: event.tier,
              tokensBefore: event.tokensBefore,
              tokensAfter: event.tokensAfter,
              summaryTokens: event.summary === null ? 0 : countTokens(event.summary, model),
            })),
            replayMs: Math.round(replay.ms),
          };
          console.error(
            `${window} ${model} ${transcript.name}: ${replay.histories.length} turns, ${compactions} compactions, ${(replay.ms / 1000).toFixed(1)} s (${((Date.now() - started) / 1000).toFixed(0)} s in all)`,
          );
        }
        records.push({
          transcript: transcript.name,
          window,
          turns: histories.length,
          replays,
          bills,
        });
      }
    }
  } finally {
    await server.stop();
  }
  return { source, records };
}

const from = argument("--from");
const stored =
  from === undefined
    ? undefined
    : (JSON.parse(readFileSync(from, "utf8")) as {
        date: string;
        machine: string;
        source?: string;
        pricings: CachePricing[];
        records: ReplayRecord[];
      });
const { source, records } =
  stored === undefined
    ? await replayCorpus()
    : { source: stored.source ?? `replays of ${from}`, records: stored.records };

const machine =
  stored?.machine ??
  `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB), Node ${process.version}`;
const date = stored?.date ?? new Date().toISOString();
const report = formatReport({
  label,
  date,
  machine,
  source: source.replace(`${repository}/`, ""),
  pricings: stored?.pricings ?? pricings,
  records,
});
console.log(report);
const out = join(repository, "apps/docs/bench-results/reports");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, `cost-bench-${label}.md`), report);
// Indented, for readable diffs (bench-results is outside biome's files: nothing reformats it).
writeFileSync(
  join(out, `cost-bench-${label}.json`),
  `${JSON.stringify({ label, date, machine, source, pricings: stored?.pricings ?? pricings, records }, null, 2)}\n`,
);
