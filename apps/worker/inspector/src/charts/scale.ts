/**
 * @module charts/scale
 * Axis arithmetic for the hand-drawn SVG charts: a round upper bound and
 * evenly spaced round ticks (1, 2 or 5 times a power of ten).
 */

/** A round step that cuts `max` into about `count` parts. */
export function niceStep(max: number, count: number): number {
  if (!(max > 0)) return 1;
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const scaled = raw / power;
  return (scaled <= 1 ? 1 : scaled <= 2 ? 2 : scaled <= 5 ? 5 : 10) * power;
}

/** Ticks from 0 to at least `max`; the last one is the axis's upper bound. */
export function ticks(max: number, count: number): number[] {
  const step = niceStep(max, count);
  const steps = Math.max(1, Math.ceil(max / step));
  return Array.from({ length: steps + 1 }, (_, i) => i * step);
}
