/**
 * @module bench/probes/probe-report
 * The probe bench's counts and tables, in Markdown: per window, each policy's share of probes
 * answered (all of them, and per kind) beside its bill as a ratio to the whole history's (total
 * over the window's replays), Condense's share in context or one search away, the issue's checks,
 * and a row per transcript.
 */

import type { CachePricing } from "@condense/core";
import type { PolicyBill } from "../cost/bills.ts";
import { PROBE_KINDS, type ProbeKind } from "./probe-set.ts";

/** Probes asked and answered, by kind. */
export type KindCounts = Record<ProbeKind, { asked: number; answered: number }>;

export interface PolicyScore {
  counts: KindCounts;
  count(kind: ProbeKind, answered: boolean): void;
  /** The share answered, as a percentage with one decimal. */
  share(): string;
}

export function tally(): PolicyScore {
  const counts = Object.fromEntries(
    PROBE_KINDS.map((kind) => [kind, { asked: 0, answered: 0 }]),
  ) as KindCounts;
  return {
    counts,
    count(kind, answered) {
      counts[kind].asked++;
      if (answered) counts[kind].answered++;
    },
    share: () => percent(sum(counts, "answered"), sum(counts, "asked")),
  };
}

/** A probe Condense's context did not answer, and whether one search did. */
export interface Missed {
  turn: number;
  kind: ProbeKind;
  key: string;
  searchAway: boolean;
}

export interface ProbeRecord {
  transcript: string;
  window: number;
  turns: number;
  checkpoints: number;
  compactions: number;
  /** By policy (`condense`, `whole history`, `masking`, `truncate-oldest`, `compact-at-95`). */
  scores: Record<string, KindCounts>;
  /** Of the probes Condense's context missed, those one search answered. */
  searchAway: KindCounts;
  /** By policy: the identifiers named so far at each checkpoint, and those its context kept. */
  identifiers: Record<string, { named: number; kept: number }>;
  /** By pricing name, then policy. */
  bills: Record<string, Record<string, PolicyBill>>;
  missed: Missed[];
}

export interface ProbeReportInput {
  label: string;
  date: string;
  machine: string;
  source: string;
  every: number;
  pricings: readonly CachePricing[];
  records: readonly ProbeRecord[];
}

function sum(
  counts: KindCounts,
  field: "asked" | "answered",
  kinds: readonly ProbeKind[] = PROBE_KINDS,
): number {
  return kinds.reduce((total, kind) => total + counts[kind][field], 0);
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "–" : `${((100 * part) / whole).toFixed(1)}%`;
}

function add(into: KindCounts, from: KindCounts | undefined): void {
  if (from === undefined) return;
  for (const kind of PROBE_KINDS) {
    into[kind].asked += from[kind].asked;
    into[kind].answered += from[kind].answered;
  }
}

/** Counts summed over `records`; `policy` `one search away` adds the searches to Condense's. */
export function totals(records: readonly ProbeRecord[], policy: string): KindCounts {
  const out = tally().counts;
  for (const record of records) {
    if (policy === SEARCH_AWAY) {
      add(out, record.scores.condense);
      for (const kind of PROBE_KINDS) out[kind].answered += record.searchAway[kind].answered;
    } else add(out, record.scores[policy]);
  }
  return out;
}

/** Identifiers named and kept over `records`, for `policy`. */
export function identifierTotals(
  records: readonly ProbeRecord[],
  policy: string,
): { named: number; kept: number } {
  let named = 0;
  let kept = 0;
  for (const record of records) {
    named += record.identifiers[policy]?.named ?? 0;
    kept += record.identifiers[policy]?.kept ?? 0;
  }
  return { named, kept };
}

/** Total bill of `policy` over `records` ÷ the whole history's. */
export function billRatio(
  records: readonly ProbeRecord[],
  pricing: string,
  policy: string,
): number {
  let cost = 0;
  let whole = 0;
  for (const record of records) {
    cost += record.bills[pricing]?.[policy]?.cost ?? Number.NaN;
    whole += record.bills[pricing]?.["whole history"]?.cost ?? Number.NaN;
  }
  return cost / whole;
}

const SEARCH_AWAY = "one search away";
const POLICIES: Array<[string, string]> = [
  ["condense", "Condense (what the gateway forwarded)"],
  [SEARCH_AWAY, "Condense, in context or one search away"],
  ["compact-at-95", "compact-at-95 (same summarizer)"],
  ["masking", "masking (newest 10 outputs kept)"],
  ["truncate-oldest", "truncate-oldest"],
  ["whole history", "whole history"],
];

const fixed = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : "–");

function share(counts: KindCounts, kinds: readonly ProbeKind[] = PROBE_KINDS): number {
  const asked = sum(counts, "asked", kinds);
  return asked === 0 ? Number.NaN : sum(counts, "answered", kinds) / asked;
}

function short(name: string): string {
  return name
    .replace("claude-code__", "cc:")
    .replace("mini-swe-agent__", "mini:")
    .replace("openhands__", "oh:")
    .replace("swe-agent__", "swe:")
    .replace(/^(cc:[0-9a-f]{4})[0-9a-f-]+$/, "$1")
    .replace(/__/g, "-");
}

export function probeReport(input: ProbeReportInput): string {
  const pricingNames = input.pricings.map((pricing) => pricing.name);
  const lines = [
    `# Probe bench: ${input.label}`,
    "",
    `${input.date}, ${input.machine}. Corpus: ${input.source}. Probes (\`apps/worker/bench/probes/probe-set.ts\`) asked at every ${input.every}th turn and the last of each replay, of the context the gateway forwarded and of what each peer policy would have sent on the same turns; "one search away": a probe the context missed that one search of the session (${"`GET /search`"}, 5 results) answers. Bills: input tokens under each provider's prompt cache, total over the window's replays ÷ the whole history's.`,
  ];
  for (const window of new Set(input.records.map((record) => record.window))) {
    const records = input.records.filter((record) => record.window === window);
    const asked = totals(records, "whole history");
    lines.push(
      "",
      `## ${window / 1000}k`,
      "",
      `${records.length} replays, ${records.reduce((n, r) => n + r.checkpoints, 0)} checkpoints, ${sum(asked, "asked")} probes (${PROBE_KINDS.map((kind) => `${kind} ${asked[kind].asked}`).join(", ")}).`,
      "",
      `| policy | all probes | ${PROBE_KINDS.join(" | ")} | identifiers kept | ${pricingNames.map((name) => `bill ÷ whole (${name})`).join(" | ")} |`,
      `|---|---|${PROBE_KINDS.map(() => "---|").join("")}---|${pricingNames.map(() => "---|").join("")}`,
    );
    for (const [policy, title] of POLICIES) {
      const counts = totals(records, policy);
      const bills = pricingNames.map((name) =>
        policy === SEARCH_AWAY ? "" : fixed(billRatio(records, name, policy)),
      );
      const ids = identifierTotals(records, policy);
      const kept =
        ids.named === 0 ? "" : `${percent(ids.kept, ids.named)} (${ids.named - ids.kept} lost)`;
      lines.push(
        `| ${title} | ${percent(sum(counts, "answered"), sum(counts, "asked"))} | ${PROBE_KINDS.map((kind) => percent(counts[kind].answered, counts[kind].asked)).join(" | ")} | ${kept} | ${bills.join(" | ")} |`,
      );
    }
    const condense = totals(records, "condense");
    const c95 = totals(records, "compact-at-95");
    const away = totals(records, SEARCH_AWAY);
    const check = (ok: boolean) => (ok ? "✓" : "✗");
    lines.push(
      "",
      `Checks: in what the gateway forwards ≥ 98% ${check(share(condense) >= 0.98)} and ≥ compact-at-95's ${check(share(condense) >= share(c95))}; errors ≥ 95% ${check(share(condense, ["error"]) >= 0.95)}; commands ≥ 95% ${check(share(condense, ["command"]) >= 0.95)}; in context or one search away 100% ${check(share(away) === 1)}.`,
      "",
      `| transcript | turns | checkpoints | probes | Condense | + one search | compact-at-95 | masking | truncate | compactions | Condense bill ÷ whole | c95 bill ÷ whole | masking bill ÷ whole |`,
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    );
    const main = pricingNames[0] ?? "";
    for (const record of records) {
      const of = (policy: string) => totals([record], policy);
      const shown = (policy: string) => {
        const counts = of(policy);
        return percent(sum(counts, "answered"), sum(counts, "asked"));
      };
      lines.push(
        `| ${short(record.transcript)} | ${record.turns} | ${record.checkpoints} | ${sum(of("whole history"), "asked")} | ${shown("condense")} | ${shown(SEARCH_AWAY)} | ${shown("compact-at-95")} | ${shown("masking")} | ${shown("truncate-oldest")} | ${record.compactions} | ${fixed(billRatio([record], main, "condense"))} | ${fixed(billRatio([record], main, "compact-at-95"))} | ${fixed(billRatio([record], main, "masking"))} |`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}
