/**
 * @module bench/probes
 * `pnpm bench probes` (`node bench/probes.ts [--label NAME] [--corpus DIR] [--only SUBSTRING]
 * [--windows 32000,128000] [--every 10]`): what the agent still knows after compaction, and at
 * what bill. Replays every corpus transcript through the gateway as `pnpm bench cost` does (its
 * corpus, server and replay: `bench/replay`), and at checkpoints (every `--every` turns and the
 * last) asks the probes of `bench/probes/probe-set` of the context the gateway forwarded; a probe
 * the context does not answer is searched in the session (`GET /search`, 5 results, as the recall
 * tool searches by default) and counts as one search away when a result's message answers it.
 * The same probes are asked of what the peer policies (`bench/cost/baselines`) would have sent on
 * the same turns: the whole history, observation masking (newest 10 outputs kept), truncate-oldest
 * and compact-at-95 with the same summarizer as the gateway's (the engine's deterministic one,
 * given at most 2,000 tokens); each policy's bill under prompt caching (`bench/cost/bills`) beside
 * its score. Prints a table per window and per probe kind, and writes
 * `apps/docs/bench-results/reports/probe-bench-<label>.{json,md}` (the JSON with each probe
 * Condense missed; the docs site shows the report under Benchmarks).
 * Needs `pnpm --filter @condense/core build`. Every request goes to 127.0.0.1.
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { type ChatMessage, extractiveSummarizer, toCanonical } from "@condense/core";
import {
  type BenchMessage,
  CompactAt95,
  MASKED_OUTPUT,
  ObservationMasking,
  TruncateOldest,
  WholeHistory,
} from "./cost/baselines.ts";
import {
  BILLING_MODEL,
  benchMessage,
  billForwarded,
  type PolicyBill,
  replayPolicy,
} from "./cost/bills.ts";
import { PRICINGS } from "./cost/pricings.ts";
import { identifiersKept, namedIdentifiers } from "./probes/identifier-count.ts";
import { answers, haystackOf } from "./probes/probe-check.ts";
import {
  type Missed,
  type PolicyScore,
  type ProbeRecord,
  probeReport,
  tally,
} from "./probes/probe-report.ts";
import { buildProbes, type Probe } from "./probes/probe-set.ts";
import { argument, loadCorpus, replaySession, repository } from "./replay/corpus.ts";
import { type GatewayTarget, replayThroughGateway } from "./replay/gateway-replay.ts";
import { startReplayServer } from "./replay/replay-server.ts";

const label = argument("--label") ?? "run";
const windows = (argument("--windows") ?? "32000,128000").split(",").map(Number);
const every = Number(argument("--every") ?? "10");
const SEARCH_LIMIT = 5;
/** compact-at-95's summary budget, as `bench/cost/baselines` bills it. */
const C95_SUMMARY_TOKENS = 2_000;

async function call(target: GatewayTarget, path: string): Promise<unknown> {
  const response = await fetch(`${target.base}${path}`, {
    headers: { Authorization: `Bearer ${target.key}` },
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

/** The session's transcript by seq. */
async function transcriptOf(
  target: GatewayTarget,
  session: string,
): Promise<Map<number, ChatMessage>> {
  const bySeq = new Map<number, ChatMessage>();
  let after = 0;
  for (let page = 0; page < 1_000; page++) {
    const body = (await call(
      target,
      `/v1/sessions/${session}/transcript?after=${after}&limit=500`,
    )) as {
      messages: Array<{ seq: number; message: ChatMessage }>;
      nextAfter: number | null;
    };
    for (const entry of body.messages) bySeq.set(entry.seq, entry.message);
    if (body.nextAfter === null) break;
    after = body.nextAfter;
  }
  return bySeq;
}

const summarizer = extractiveSummarizer();

/** compact-at-95's summary of what it drops: the engine's deterministic summarizer, as the gateway's. */
async function summarizeDropped(dropped: readonly BenchMessage[]): Promise<BenchMessage> {
  const messages: ChatMessage[] = [];
  let previousSummary: string | undefined;
  for (const entry of dropped) {
    const message = entry.message;
    if (message === undefined) continue;
    const body = typeof message.content === "string" ? message.content : "";
    if (body.startsWith(C95_OPEN)) previousSummary = body.slice(C95_OPEN.length);
    else messages.push(message);
  }
  const { summary } = await summarizer.summarize({
    messages,
    ...(previousSummary === undefined ? {} : { previousSummary }),
    model: BILLING_MODEL,
    targetTokens: C95_SUMMARY_TOKENS,
    maxTokens: C95_SUMMARY_TOKENS,
    identifierPolicy: "strict",
    ledger: { identifiers: [], files: { read: [], modified: [] }, userRequests: [] },
  });
  const message: ChatMessage = { role: "user", content: `${C95_OPEN}${summary}` };
  return { ...benchMessage(message), message };
}

const C95_OPEN = "The conversation so far was compacted into this summary:\n\n";

function masked(entry: BenchMessage): BenchMessage {
  const message: ChatMessage = {
    role: "tool",
    tool_call_id: entry.message?.tool_call_id ?? entry.key,
    content: MASKED_OUTPUT,
  };
  return { ...benchMessage(message), message };
}

function forwardedMessages(body: Record<string, unknown> | null | undefined): ChatMessage[] {
  const raw = Array.isArray(body?.messages) ? (body.messages as unknown[]) : [];
  return toCanonical({ format: "openai", messages: raw });
}

const { source, transcripts } = loadCorpus();
const server = await startReplayServer();
const { target } = server;
const records: ProbeRecord[] = [];
const started = Date.now();
try {
  for (const window of windows) {
    for (const transcript of transcripts) {
      const session = replaySession(window, transcript.name);
      const turns = transcript.messages.filter((m, i) => m.role === "assistant" && i > 0).length;
      const checkpoint = (turn: number) => (turn + 1) % every === 0 || turn === turns - 1;
      const asked = new Map<number, Probe[]>();
      const named = new Map<number, string[]>();
      const identifiers: ProbeRecord["identifiers"] = {};
      const countIdentifiers = (policy: string, turn: number, context: readonly ChatMessage[]) => {
        const ids = named.get(turn) ?? [];
        const tally = identifiers[policy] ?? { named: 0, kept: 0 };
        tally.named += ids.length;
        tally.kept += identifiersKept(ids, context);
        identifiers[policy] = tally;
      };
      const condense: PolicyScore = tally();
      const searched: Array<{
        turn: number;
        probe: Probe;
        context: ChatMessage[];
        seqs: number[];
      }> = [];
      const replay = await replayThroughGateway(target, {
        session,
        messages: transcript.messages,
        contextWindow: window,
        model: BILLING_MODEL,
        afterTurn: async ({ turn, history, forwarded }) => {
          if (!checkpoint(turn)) return;
          const probes = buildProbes(history);
          asked.set(turn, probes);
          named.set(turn, namedIdentifiers(history));
          const context = forwardedMessages(forwarded?.body);
          countIdentifiers("condense", turn, context);
          const haystack = haystackOf(context);
          for (const probe of probes) {
            const found = answers(probe, haystack);
            condense.count(probe.kind, found);
            if (found) continue;
            const answer = (await call(
              target,
              `/v1/sessions/${session}/search?q=${encodeURIComponent(probe.query)}&limit=${SEARCH_LIMIT}`,
            )) as { results: Array<{ seq: number }> };
            searched.push({ turn, probe, context, seqs: answer.results.map((r) => r.seq) });
          }
        },
      });
      const bySeq = await transcriptOf(target, session);
      const missed: Missed[] = [];
      const searchAway = tally();
      for (const entry of searched) {
        const found = entry.seqs
          .map((seq) => bySeq.get(seq))
          .filter((m): m is ChatMessage => m !== undefined);
        const away = answers(entry.probe, haystackOf([...entry.context, ...found]));
        searchAway.count(entry.probe.kind, away);
        missed.push({
          turn: entry.turn,
          kind: entry.probe.kind,
          key: entry.probe.key.slice(0, 200),
          searchAway: away,
        });
      }

      const scores: Record<string, PolicyScore> = { condense };
      const bills: Record<string, Record<string, PolicyBill>> = {};
      for (const pricing of PRICINGS) {
        bills[pricing.name] = {
          condense: {
            ...billForwarded(replay.forwarded, pricing),
            compactions: replay.compactions.length,
          },
        };
      }
      const peers = [
        new WholeHistory(),
        new ObservationMasking(window, masked),
        new TruncateOldest(window),
        new CompactAt95(window, summarizeDropped),
      ];
      for (const policy of peers) {
        const score = tally();
        const policyBills = await replayPolicy(replay.histories, policy, PRICINGS, {
          withContent: true,
          observe: (turn, context) => {
            const probes = asked.get(turn);
            if (probes === undefined) return;
            const messages = context.map((entry) => entry.message).filter((m) => m !== undefined);
            for (const probe of probes)
              score.count(probe.kind, answers(probe, haystackOf(messages)));
            countIdentifiers(policy.name, turn, messages);
          },
        });
        scores[policy.name] = score;
        for (const pricing of PRICINGS) {
          const billed = policyBills[pricing.name];
          const byPricing = bills[pricing.name];
          if (billed !== undefined && byPricing !== undefined) byPricing[policy.name] = billed;
        }
      }
      records.push({
        transcript: transcript.name,
        window,
        turns,
        checkpoints: asked.size,
        compactions: replay.compactions.length,
        scores: Object.fromEntries(
          Object.entries(scores).map(([name, score]) => [name, score.counts]),
        ),
        searchAway: searchAway.counts,
        identifiers,
        bills,
        missed,
      });
      console.error(
        `${window} ${transcript.name}: ${turns} turns, ${asked.size} checkpoints, ${replay.compactions.length} compactions, Condense ${condense.share()} in context, ${(replay.ms / 1000).toFixed(1)} s (${((Date.now() - started) / 1000).toFixed(0)} s in all)`,
      );
    }
  }
} finally {
  await server.stop();
}

const machine = `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB), Node ${process.version}`;
const date = new Date().toISOString();
const report = probeReport({
  label,
  date,
  machine,
  source: source.replace(`${repository}/`, ""),
  every,
  pricings: PRICINGS,
  records,
});
console.log(report);
const out = join(repository, "apps/docs/bench-results/reports");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, `probe-bench-${label}.md`), report);
// Indented, for readable diffs (bench-results is outside biome's files: nothing reformats it).
writeFileSync(
  join(out, `probe-bench-${label}.json`),
  `${JSON.stringify({ label, date, machine, every, records }, null, 2)}\n`,
);
