/**
 * @module bench/cost
 * `pnpm bench cost` (`node bench/cost.ts [--label NAME] [--corpus DIR] [--only SUBSTRING]
 * [--windows 32000,128000]`): the bill, not the token count. Replays every corpus transcript
 * (`--corpus`, else ../shared/corpus/normalized beside the repository when present, else the
 * engine's fixtures) through the gateway under
 * `wrangler dev`, a session per transcript and window (32k and 128k), and bills the requests
 * the gateway forwarded under Anthropic's, GPT-5's and gpt-4o's prompt caching, against the
 * whole history, truncate-oldest and compact-at-95 on the same turns (`bench/cost/bills`).
 * Prints a table per window and pricing with the medians and the issue's two checks (Condense
 * ≤ 0.8 × compact-at-95 where a baseline compacted, ≤ 1.05 × the whole history where it
 * fits), and writes `docs/notes/cost-bench-<label>.{json,md}` with the date and the machine.
 * Needs `pnpm --filter @condense/core build`. Every request goes to 127.0.0.1.
 */

import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CachePricing,
  type ChatMessage,
  cachePricingOf,
  countTokens,
  modelPricing,
  parseMessages,
} from "@condense/core";
import { TRANSCRIPTS_DIR } from "@condense/test-fixtures/transcripts";
import { startGatewayUpstream } from "../test/gateway-upstream.ts";
import { startWranglerDev } from "../test-e2e/wrangler-dev.ts";
import { totalTokens } from "./cost/baselines.ts";
import {
  BILLING_MODEL,
  benchMessage,
  billBaselines,
  billForwarded,
  type PolicyBill,
} from "./cost/bills.ts";
import { type GatewayTarget, replayThroughGateway } from "./replay/gateway-replay.ts";
import { formatReport, type ReplayRecord } from "./cost/report.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const repository = join(root, "../..");

function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/** A pricing of the catalog, as the biller takes it. */
function pricingOf(name: string, model: string): CachePricing {
  const catalog = modelPricing(model);
  const pricing = cachePricingOf(catalog, model, name);
  if (catalog.caching.kind === "none" || pricing.inputPerMillion === 0) {
    throw new Error(`the catalog has no cache prices for ${model}`);
  }
  return pricing;
}

export const PRICINGS: CachePricing[] = [
  pricingOf("Anthropic", "claude-sonnet-4-5"),
  pricingOf("GPT-5", "gpt-5"),
  pricingOf("gpt-4o", "gpt-4o"),
];

function corpus(): {
  source: string;
  transcripts: Array<{ name: string; messages: ChatMessage[] }>;
} {
  const shared = argument("--corpus") ?? join(repository, "../shared/corpus/normalized");
  let folder = TRANSCRIPTS_DIR;
  try {
    if (readdirSync(shared).length > 0) folder = shared;
  } catch {
    // No shared corpus beside the repository: the fixtures.
  }
  const only = argument("--only");
  const transcripts = readdirSync(folder)
    .filter((file) => file.endsWith(".json") && (only === undefined || file.includes(only)))
    .sort()
    .map((file) => ({
      name: file.replace(/\.json$/, ""),
      messages: parseMessages(
        (JSON.parse(readFileSync(join(folder, file), "utf8")) as { messages: unknown[] }).messages,
      ),
    }));
  return { source: folder, transcripts };
}

const label = argument("--label") ?? "run";
const windows = (argument("--windows") ?? "32000,128000").split(",").map(Number);
const { source, transcripts } = corpus();
const KEY = "cost-bench-key";
const upstream = await startGatewayUpstream();
// The replay sends a session's turns (and its status polls) as fast as the Worker answers, far
// above the deployment's per-user RATE_LIMITER: wrangler dev runs a copy of the configuration
// whose limit no replay reaches (as the workerd tests raise it), beside the original so its
// relative paths still hold.
const benchConfig = join(root, "wrangler.bench.jsonc");
const configured = readFileSync(join(root, "wrangler.jsonc"), "utf8");
const unlimited = configured.replace(/("simple":\s*\{\s*"limit":\s*)\d+/, "$11000000000");
if (unlimited === configured) throw new Error("wrangler.jsonc: no RATE_LIMITER limit to raise");
writeFileSync(benchConfig, unlimited);
const server = await startWranglerDev({
  workerDir: root,
  config: benchConfig,
  vars: {
    API_KEYS: `bench:${KEY}`,
    COMPACTION_DELAY_MS: "0",
    GATEWAY_UPSTREAMS: `bench=${upstream.origin}/v1`,
    GATEWAY_KEY_BENCH: "sk-bench-upstream",
  },
});
// Stopped by a signal, the bench stops wrangler dev (its own process group) on the way out.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void server.stop().finally(() => process.exit(130));
  });
}
const target: GatewayTarget = { base: server.baseUrl, key: KEY, upstreamName: "bench", upstream };
const records: ReplayRecord[] = [];
const started = Date.now();
try {
  for (const window of windows) {
    for (const transcript of transcripts) {
      const session = `${window}-${transcript.name}`.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 100);
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
          ...billBaselines(replay.histories, window, pricing),
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
  await upstream.close();
  rmSync(benchConfig, { force: true });
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
const out = join(repository, "docs/notes");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, `cost-bench-${label}.md`), report);
const files = [join(out, `cost-bench-${label}.md`), join(out, `cost-bench-${label}.json`)];
writeFileSync(
  files[1] as string,
  `${JSON.stringify({ label, date: new Date().toISOString(), machine, pricings: PRICINGS, records })}\n`,
);
// In the repository's format, so that `biome ci` passes with the results committed.
execFileSync(join(repository, "node_modules/.bin/biome"), ["format", "--write", ...files], {
  stdio: "ignore",
});
