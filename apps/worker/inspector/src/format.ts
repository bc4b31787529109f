/**
 * @module format
 * How the inspector writes numbers, shares and times, the same way in every view.
 */

const integer = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

export function formatTokens(value: number): string {
  return integer.format(value);
}

/** `part` as a share of `whole`, e.g. "38.6%"; "—" when there is no whole. */
export function formatShare(part: number, whole: number): string {
  if (!(whole > 0)) return "—";
  return `${((part / whole) * 100).toFixed(1)}%`;
}

/** A short axis label: 950, 12k, 1.2M. */
export function formatShort(value: number): string {
  if (value >= 1_000_000) return `${(value / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
  if (value >= 1_000)
    return `${(value / 1_000).toFixed(value >= 10_000 ? 0 : 1).replace(/\.0$/, "")}k`;
  return String(Math.round(value));
}

/** An ISO time as the reader's local date and time; the input as-is when it is not a date. */
export function formatTime(iso: string | null): string {
  if (iso === null) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return "—";
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`;
}
