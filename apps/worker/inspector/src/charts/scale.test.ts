import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { niceStep, ticks } from "./scale.ts";

describe("axis ticks", () => {
  it("picks round steps", () => {
    expect(niceStep(32_000, 5)).toBe(10_000);
    expect(niceStep(71_576, 6)).toBe(20_000);
    expect(ticks(32_000, 4)).toEqual([0, 10_000, 20_000, 30_000, 40_000]);
    expect(ticks(0, 4)).toEqual([0, 1]);
  });

  it("start at 0, cover the maximum, and stay few and evenly spaced", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.integer({ min: 2, max: 8 }),
        (max, count) => {
          const values = ticks(max, count);
          expect(values[0]).toBe(0);
          expect(values.at(-1)).toBeGreaterThanOrEqual(max);
          expect(values.length).toBeLessThanOrEqual(2 * count + 2);
          const step = (values[1] ?? 0) - (values[0] ?? 0);
          for (const [i, value] of values.entries()) expect(value).toBeCloseTo(i * step, 6);
        },
      ),
    );
  });
});
