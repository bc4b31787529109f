import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { breakEvenTokens, decideCostCompaction } from "./cost-policy.js";

const anthropic = { cacheWrite: 1.25, cacheRead: 0.1 };
const gpt5 = { cacheWrite: 1, cacheRead: 0.1 };
const gpt4o = { cacheWrite: 1, cacheRead: 0.5 };

describe("breakEvenTokens", () => {
  it("is the bust over the read price: (w/r − 1) × (C − H), plus the summary's cost over r", () => {
    expect(breakEvenTokens(anthropic, 8_000, 0)).toBeCloseTo(11.5 * 8_000);
    expect(breakEvenTokens(gpt5, 8_000, 0)).toBeCloseTo(9 * 8_000);
    expect(breakEvenTokens(gpt4o, 8_000, 0)).toBeCloseTo(8_000);
    expect(breakEvenTokens(gpt4o, 8_000, 1_000)).toBeCloseTo(8_000 + 2_000);
  });

  it("is only the summary's cost where nothing is cached", () => {
    expect(breakEvenTokens({ cacheWrite: 1, cacheRead: 1 }, 8_000, 500)).toBe(500);
  });
});

describe("decideCostCompaction", () => {
  const base = {
    floorTokens: 64_000,
    pricing: anthropic,
    expectedCompactedTokens: 9_400,
    summarizerCostTokens: 0,
  };

  it("leaves a context under the floor alone, carrying its excess", () => {
    const state = { excessTokens: 1_000_000, compactedTokens: 10_000, stableTokens: 1_000 };
    expect(decideCostCompaction({ ...base, tokens: 50_000, state })).toEqual({
      compact: false,
      reason: "under_floor",
      excessTokens: 1_040_000,
      breakEvenTokens: 11.5 * 9_000,
    });
  });

  it("compacts past the floor once the excess read reaches the break-even (ski rental)", () => {
    const state = { excessTokens: 0, compactedTokens: 10_000, stableTokens: 1_000 };
    // 11.5 × 9,000 = 103,500 excess to go: two turns at 64,000 (54,000 each) reach it.
    const first = decideCostCompaction({ ...base, tokens: 64_000, state });
    expect(first).toMatchObject({ compact: false, reason: "not_yet", excessTokens: 54_000 });
    const second = decideCostCompaction({
      ...base,
      tokens: 64_000,
      state: { ...state, excessTokens: first.excessTokens },
    });
    expect(second).toMatchObject({ compact: true, reason: "pays_off", excessTokens: 108_000 });
  });

  it("without state, compacts past the floor only when a compaction would halve the context", () => {
    expect(decideCostCompaction({ ...base, tokens: 64_000, state: undefined })).toMatchObject({
      compact: true,
      reason: "pays_off",
    });
    const large = { ...base, expectedCompactedTokens: 40_000 };
    expect(decideCostCompaction({ ...large, tokens: 70_000, state: undefined })).toMatchObject({
      compact: false,
      reason: "would_not_halve",
    });
  });

  it("never compacts under the floor, and past it compacts sooner the cheaper the bust (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200_000 }),
        fc.integer({ min: 0, max: 500_000 }),
        fc.integer({ min: 1_000, max: 60_000 }),
        fc.integer({ min: 0, max: 1_000 }),
        (tokens, excess, compacted, stable) => {
          const state = {
            excessTokens: excess,
            compactedTokens: compacted,
            stableTokens: Math.min(stable, compacted),
          };
          const dear = decideCostCompaction({ ...base, tokens, state });
          const cheap = decideCostCompaction({ ...base, pricing: gpt4o, tokens, state });
          if (tokens < base.floorTokens) expect(dear.compact || cheap.compact).toBe(false);
          if (dear.compact) expect(cheap.compact).toBe(true);
          expect(dear.excessTokens).toBeGreaterThanOrEqual(excess);
        },
      ),
    );
  });

  it("compacts a cold cache past the floor at once: the next request writes everything anyway", () => {
    const state = { excessTokens: 0, compactedTokens: 10_000, stableTokens: 1_000 };
    const warm = decideCostCompaction({ ...base, tokens: 70_000, state });
    expect(warm).toMatchObject({ compact: false, reason: "not_yet" });
    const cold = decideCostCompaction({ ...base, tokens: 70_000, state, coldCache: true });
    expect(cold).toMatchObject({ compact: true, reason: "cold_cache" });
    // Under the floor the context is not worth shrinking, cold or not.
    expect(decideCostCompaction({ ...base, tokens: 50_000, state, coldCache: true })).toMatchObject(
      { compact: false, reason: "under_floor" },
    );
    // A summary dearer than the write it saves (1.25 × 60,000) is not worth it.
    expect(
      decideCostCompaction({
        ...base,
        tokens: 70_000,
        state,
        coldCache: true,
        summarizerCostTokens: 80_000,
      }),
    ).toMatchObject({ compact: false, reason: "not_yet" });
  });
});
