/**
 * @module bench/compare/verdict
 * From the two checkouts' samples to the verdict: each metric's medians, the ratio change/base,
 * and whether it moved past the metric's noise margin. Ratios, not absolute times: the machine
 * is shared, and what it does to one checkout's samples it does to the other's in the same run.
 *
 * The margins were measured by comparing a commit with itself (`pnpm bench compare --base HEAD`
 * on a clean checkout: both sides the same code) on this repository's 2-core machine while other
 * work ran on it; `MARGINS` says what each is and how it was picked.
 */

export interface Samples {
  base: number[];
  change: number[];
}

/**
 * The ratio change/base past which a metric is called slower (below 1 − margin: faster). Each is
 * a little over the widest ratio the metric showed between identical checkouts in five runs of
 * five rounds each (see the docs' benchmarks page), rounded up, so that noise alone does not fail
 * the gate and a 20% slowdown of a hot path does. Metrics with no margin are printed, not gated:
 * their spread between identical checkouts was wider than a useful margin.
 */
export const MARGINS: ReadonlyArray<{ metric: RegExp; margin: number }> = [
  { metric: /^Worker bundle/, margin: 0.005 },
  { metric: /^import @condense\/core \+ first count, CPU$/, margin: 0.1 },
  { metric: /^append to a 200k-token session, CPU$/, margin: 0.12 },
  { metric: /^search a 200k-token session, CPU$/, margin: 0.12 },
  { metric: /^forced compaction .*, CPU$/, margin: 0.12 },
  { metric: /^gateway turn, .*, CPU$/, margin: 0.12 },
];

export function marginOf(metric: string): number | undefined {
  return MARGINS.find((entry) => entry.metric.test(metric))?.margin;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

export interface Row {
  metric: string;
  samples: number;
  base: number;
  change: number;
  ratio: number;
  margin: number | undefined;
  verdict: "slower" | "faster" | "same" | "not gated" | "no samples";
}

export function verdicts(samples: ReadonlyMap<string, Samples>): Row[] {
  return [...samples].map(([metric, { base, change }]) => {
    const ratio = median(change) / median(base);
    const margin = marginOf(metric);
    const verdict = !Number.isFinite(ratio)
      ? "no samples"
      : margin === undefined
        ? "not gated"
        : ratio > 1 + margin
          ? "slower"
          : ratio < 1 - margin
            ? "faster"
            : "same";
    return {
      metric,
      samples: Math.min(base.length, change.length),
      base: median(base),
      change: median(change),
      ratio,
      margin,
      verdict,
    };
  });
}

export function formatRows(rows: readonly Row[]): string {
  const cells = rows.map((row) => [
    row.metric,
    String(row.samples),
    row.base.toFixed(1),
    row.change.toFixed(1),
    row.ratio.toFixed(3),
    row.margin === undefined ? "-" : `±${(row.margin * 100).toFixed(1)}%`,
    row.verdict === "slower" ? "SLOWER" : row.verdict,
  ]);
  const header = [
    "metric (ms unless stated)",
    "n",
    "base median",
    "change median",
    "change/base",
    "margin",
    "verdict",
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? "").length)));
  const line = (c: string[]) =>
    c
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ");
  return [line(header), ...cells.map(line)].join("\n");
}
