/**
 * @module bench/compare/verdict
 * From the two checkouts' samples to the verdict: each metric's medians, the ratio change/base,
 * and whether it moved past the metric's noise margin. Ratios, not absolute times: the machine
 * is shared, and what it does to one checkout's samples it does to the other's in the same run.
 *
 * The margins were measured by comparing a commit with itself (`pnpm bench compare --base HEAD`
 * on a clean checkout: both sides the same code) on the project's 2-core machine while other work
 * ran on it; `MARGINS` says what each is and how it was picked.
 */

export interface Samples {
  base: number[];
  change: number[];
}

/**
 * The ratio change/base past which a metric is called slower (below 1 − margin: faster), for a run
 * of five rounds (the default); `marginOf` widens it by √(5 / rounds) for fewer, as the spread of
 * a median shrinks with the square root of its samples. Measured by comparing a commit with itself
 * (`pnpm bench compare --base HEAD` on a clean checkout) on the project's 2-core machine, shared,
 * load average 6–37 (2026-11-28): with five rounds the CPU metrics' ratios were 0.971–1.020 (the
 * widest 2.9% off), with two rounds 0.940–1.099; the wall times' 0.811–1.159, too wide to gate.
 * 8% is a little under three times the widest five-round spread, so that noise alone does not fail
 * the gate and a 20% slowdown of a hot path does. The bundle's size is deterministic: 0.5% is about
 * 6 KiB gzipped. Metrics with no margin are printed, not gated.
 */
export const MARGINS: ReadonlyArray<{ metric: RegExp; margin: number }> = [
  { metric: /^Worker bundle/, margin: 0.005 },
  { metric: /, CPU$/, margin: 0.08 },
];

/** The rounds the margins were measured with. */
const MARGIN_ROUNDS = 5;

export function marginOf(metric: string, rounds = MARGIN_ROUNDS): number | undefined {
  const margin = MARGINS.find((entry) => entry.metric.test(metric))?.margin;
  if (margin === undefined || metric.startsWith("Worker bundle")) return margin;
  return margin * Math.sqrt(MARGIN_ROUNDS / Math.max(1, Math.min(rounds, MARGIN_ROUNDS)));
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

export function verdicts(samples: ReadonlyMap<string, Samples>, rounds: number): Row[] {
  return [...samples].map(([metric, { base, change }]) => {
    const ratio = median(change) / median(base);
    const margin = marginOf(metric, rounds);
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
