/**
 * @module bench/cost/report
 * The cost bench's tables, in Markdown: per window and pricing, each transcript's bills as a
 * ratio to the whole history, the medians, and the issue's checks (Condense's median bill
 * ≤ 0.8 × compact-at-95's over the replays where a baseline compacted; ≤ 1.05 × the whole
 * history on every replay whose whole history fits the window).
 */

import type { CachePricing } from "@condense/core";
import type { ReplayRecord } from "./replay-record.ts";
import { compact95SummaryCost, summaryCosts } from "./summaries.ts";

export interface ReportInput {
  label: string;
  date: string;
  machine: string;
  source: string;
  pricings: readonly CachePricing[];
  records: readonly ReplayRecord[];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "–");
const thousands = (value: number) => `${(value / 1000).toFixed(1)}k`;

function short(name: string): string {
  return name
    .replace("claude-code__", "cc:")
    .replace("mini-swe-agent__", "mini:")
    .replace("openhands__", "oh:")
    .replace("swe-agent__", "swe:")
    .replace(/^(cc:[0-9a-f]{4})[0-9a-f-]+$/, "$1")
    .replace(/__/g, "-");
}

/** Whether a baseline compacted this replay (the set the 0.8 check is taken over). */
export function acted(record: ReplayRecord, pricing: string): boolean {
  const bills = record.bills[pricing] ?? {};
  return (
    (bills["compact-at-95"]?.compactions ?? 0) + (bills["truncate-oldest"]?.compactions ?? 0) > 0
  );
}

export const fits = (record: ReplayRecord, pricing: string) =>
  (record.replays[pricing]?.wholeTokens ?? Number.POSITIVE_INFINITY) <= record.window;

function ratio(
  record: ReplayRecord,
  pricing: string,
  policy: string,
  to = "whole history",
): number {
  const bills = record.bills[pricing] ?? {};
  return (bills[policy]?.cost ?? Number.NaN) / (bills[to]?.cost ?? Number.NaN);
}

export interface Check {
  window: number;
  pricing: string;
  condenseActed: number;
  compact95Acted: number;
  /** Ratio of the two acted-set medians (bills ÷ whole history): the 0.8 check. */
  versusCompact95: number;
  /** The median over the acted set of each replay's Condense ÷ compact-at-95. */
  medianPerReplay: number;
  /** The most Condense costs over the whole history where it fits: the 1.05 check. */
  worstWhereFits: number;
  /** `versusCompact95` had the gateway marked the end of the head for Anthropic (phase 2). */
  headMarkVersusCompact95: number;
}

export function checks(input: ReportInput): Check[] {
  const out: Check[] = [];
  for (const window of new Set(input.records.map((record) => record.window))) {
    const records = input.records.filter((record) => record.window === window);
    for (const { name } of input.pricings) {
      const actedSet = records.filter((record) => acted(record, name));
      const condenseActed = median(actedSet.map((r) => ratio(r, name, "condense")));
      const compact95Acted = median(actedSet.map((r) => ratio(r, name, "compact-at-95")));
      out.push({
        window,
        pricing: name,
        condenseActed,
        compact95Acted,
        versusCompact95: condenseActed / compact95Acted,
        medianPerReplay: median(actedSet.map((r) => ratio(r, name, "condense", "compact-at-95"))),
        worstWhereFits: Math.max(
          ...records.filter((r) => fits(r, name)).map((r) => ratio(r, name, "condense")),
        ),
        headMarkVersusCompact95:
          median(actedSet.map((r) => ratio(r, name, "condense + head mark"))) / compact95Acted,
      });
    }
  }
  return out;
}

/**
 * What the summaries add to the bills (`bench/cost/summaries`), per window and pricing: their share
 * of Condense's bill with them (all replays' sums), sent whole and through the cache, and the 0.8
 * check again with each side's summaries through the cache added to its bill.
 */
function summaryTable(input: ReportInput): string[] {
  const lines = [
    "| window | pricing | summaries C / c95 | share of the bill, sent whole | share, through the cache | Condense ÷ compact-at-95, summaries through the cache on both sides |",
    "|---|---|---|---|---|---|",
  ];
  for (const window of new Set(input.records.map((record) => record.window))) {
    const records = input.records.filter((record) => record.window === window);
    for (const pricing of input.pricings) {
      const { name } = pricing;
      let bills = 0;
      let whole = 0;
      let cached = 0;
      let count = 0;
      let count95 = 0;
      const withSummaries = (record: ReplayRecord, policy: string, summaries: number) =>
        ((record.bills[name]?.[policy]?.cost ?? Number.NaN) + summaries) /
        (record.bills[name]?.["whole history"]?.cost ?? Number.NaN);
      const condense: number[] = [];
      const c95: number[] = [];
      for (const record of records) {
        const costs = summaryCosts(record.replays[name], pricing);
        const compactions95 = record.bills[name]?.["compact-at-95"]?.compactions ?? 0;
        bills += record.bills[name]?.condense?.cost ?? 0;
        whole += costs.sentWhole;
        cached += costs.throughCache;
        count += costs.count;
        count95 += compactions95;
        if (acted(record, name)) {
          condense.push(withSummaries(record, "condense", costs.throughCache));
          c95.push(
            withSummaries(
              record,
              "compact-at-95",
              compact95SummaryCost(compactions95, window, pricing),
            ),
          );
        }
      }
      const percent = (part: number) => `${fixed((100 * part) / (bills + part), 1)}%`;
      lines.push(
        `| ${window / 1000}k | ${name} | ${count} / ${count95} | ${percent(whole)} | ${percent(cached)} | ${fixed(median(condense) / median(c95))} |`,
      );
    }
  }
  return lines;
}

function transcriptTable(records: readonly ReplayRecord[], pricing: CachePricing): string[] {
  const name = pricing.name;
  const lines = [
    `| transcript | turns | whole | Condense ÷ whole | compact-at-95 ÷ whole | truncate ÷ whole | Condense ÷ c95 | compactions C / c95 / tr | busts C / c95 | Condense $ | whole $ |`,
    "|---|---|---|---|---|---|---|---|---|---|---|",
  ];
  const dollars = (cost: number) => `$${((cost * pricing.inputPerMillion) / 1e6).toFixed(2)}`;
  for (const record of records) {
    const bills = record.bills[name] ?? {};
    const c = bills.condense;
    const c95 = bills["compact-at-95"];
    const tr = bills["truncate-oldest"];
    const whole = bills["whole history"];
    const tags = [fits(record, name) ? "fits" : "", acted(record, name) ? "acted" : ""].filter(
      Boolean,
    );
    lines.push(
      `| ${short(record.transcript)}${tags.length > 0 ? ` (${tags.join(", ")})` : ""} | ${record.turns} | ${thousands(record.replays[name]?.wholeTokens ?? 0)} | ${fixed(ratio(record, name, "condense"))} | ${fixed(ratio(record, name, "compact-at-95"))} | ${fixed(ratio(record, name, "truncate-oldest"))} | ${fixed(ratio(record, name, "condense", "compact-at-95"))} | ${c?.compactions ?? 0} / ${c95?.compactions ?? 0} / ${tr?.compactions ?? 0} | ${c?.busts ?? 0} / ${c95?.busts ?? 0} | ${dollars(c?.cost ?? 0)} | ${dollars(whole?.cost ?? 0)} |`,
    );
  }
  return lines;
}

function compactionLines(records: readonly ReplayRecord[], pricing: string): string[] {
  const events = records.flatMap((record) => record.replays[pricing]?.compactions ?? []);
  const tiers = new Map<number, number>();
  for (const event of events) tiers.set(event.tier, (tiers.get(event.tier) ?? 0) + 1);
  const summaries = events.filter((event) => event.summaryTokens > 0).map((e) => e.summaryTokens);
  const kept = records.map((record) => record.bills[pricing]?.condense?.meanTokens ?? 0);
  const summary =
    summaries.length === 0
      ? "no summary"
      : `summary: median ${thousands(median(summaries))}, max ${thousands(Math.max(...summaries))} tokens`;
  return [
    `Condense's compactions: ${events.length} (${[...tiers.entries()]
      .sort(([a], [b]) => a - b)
      .map(([tier, count]) => `tier ${tier}: ${count}`)
      .join(
        ", ",
      )}); tokens before a compaction (the trigger it fired at): median ${thousands(median(events.map((e) => e.tokensBefore)))}; after (the kept size): median ${thousands(median(events.map((e) => e.tokensAfter)))}; ${summary}; context forwarded per request: median over replays ${thousands(median(kept))}.`,
  ];
}

export function formatReport(input: ReportInput): string {
  const lines = [
    `# Cost bench: ${input.label}`,
    "",
    `${input.date}, ${input.machine}. Corpus: ${input.source}. Each pricing replays the corpus with its own model (the session's model, so the cost policy decides at that pricing's prices), and counts its bills with the engine's tokenizer for it (o200k; for Claude with the engine's 15% margin, as the test upstream reports its usage). Bills are input tokens under each provider's prompt cache (\`packages/core/src/billing/prompt-cache.ts\`), as ratios to sending the whole history with caching; "acted" marks the replays where a baseline compacted, "fits" those whose whole history fits the window. The 0.8 check is the ratio of the acted-set medians; the per-replay median is each replay's Condense ÷ compact-at-95 over the same set. The last column bills the same requests as if the gateway also marked the end of the head (system prompt and first three messages) for Anthropic, which it does not do yet.`,
    "",
    "| window | pricing | Condense ÷ whole (acted, median) | compact-at-95 ÷ whole | Condense ÷ compact-at-95 (≤ 0.8) | per-replay median | worst where it fits (≤ 1.05) | ÷ compact-at-95 with a head breakpoint |",
    "|---|---|---|---|---|---|---|---|",
  ];
  for (const check of checks(input)) {
    const pass = (ok: boolean) => (ok ? "✓" : "✗");
    lines.push(
      `| ${check.window / 1000}k | ${check.pricing} | ${fixed(check.condenseActed)} | ${fixed(check.compact95Acted)} | ${fixed(check.versusCompact95)} ${pass(check.versusCompact95 <= 0.8)} | ${fixed(check.medianPerReplay)} | ${fixed(check.worstWhereFits)} ${pass(check.worstWhereFits <= 1.05)} | ${fixed(check.headMarkVersusCompact95)} |`,
    );
  }
  lines.push(
    "",
    "What the summaries cost beside the bills above (which count the turns only), had an LLM written each summary the replay's compactions wrote (`bench/cost/summaries`): sent whole (the folded range and the summary prompt to the same model, uncached) or through the cache (the context before the compaction read from the cache, the instruction and the summary in full); compact-at-95's priced through the cache at 95% of the window with a 2,000-token summary.",
    "",
    ...summaryTable(input),
  );
  for (const window of new Set(input.records.map((record) => record.window))) {
    const records = input.records.filter((record) => record.window === window);
    lines.push("", `## ${window / 1000}k`);
    for (const pricing of input.pricings) {
      lines.push(
        "",
        `### ${window / 1000}k, ${pricing.name} (replayed as ${pricing.model}: cache write ${fixed(pricing.cacheWrite)}×, read ${fixed(pricing.cacheRead)}×, $${pricing.inputPerMillion}/M input)`,
        "",
        ...compactionLines(records, pricing.name),
      );
      const split = records.filter(
        (record) => (record.replays[pricing.name]?.generations.length ?? 1) !== 1,
      );
      if (split.length > 0) {
        lines.push(
          "",
          `Replays whose session started a new generation (the history did not match): ${split.map((r) => short(r.transcript)).join(", ")}.`,
        );
      }
      lines.push("", ...transcriptTable(records, pricing));
    }
  }
  return `${lines.join("\n")}\n`;
}
