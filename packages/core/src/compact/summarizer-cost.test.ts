import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { modelPricing } from "../models/pricing.js";
import { decideCostCompaction } from "./cost-policy.js";
import {
  cachedSummaryCostTokens,
  DEFAULT_OUTPUT_PRICE_RATIO,
  separateSummaryCostTokens,
} from "./summarizer-cost.js";

const sonnet = { cacheRead: 0.1, inputPerMillion: 3, outputPerMillion: 15 };
const unpriced = { cacheRead: 0.1, inputPerMillion: undefined, outputPerMillion: undefined };

describe("cachedSummaryCostTokens", () => {
  it("reads the live prompt at the read price; only the instruction and the output at full price", () => {
    // 60,000 × 0.1 + 700 + 2,000 × (15 / 3)
    expect(
      cachedSummaryCostTokens(
        { promptTokens: 60_000, instructionTokens: 700, outputTokens: 2_000 },
        sonnet,
      ),
    ).toBe(6_000 + 700 + 10_000);
  });

  it("prices the output at the default ratio when the catalog has no prices", () => {
    expect(
      cachedSummaryCostTokens(
        { promptTokens: 10_000, instructionTokens: 0, outputTokens: 1_000 },
        unpriced,
      ),
    ).toBe(1_000 + 1_000 * DEFAULT_OUTPUT_PRICE_RATIO);
  });
});

describe("separateSummaryCostTokens", () => {
  it("prices a summarizer model of its own at its prices, over the session model's input price", () => {
    // gpt-4o-mini-like prices (0.15 / 0.6) for a Sonnet session (3 in): 50,000 in and 2,000 out.
    const mini = { inputPerMillion: 0.15, outputPerMillion: 0.6 };
    expect(
      separateSummaryCostTokens({ inputTokens: 50_000, outputTokens: 2_000 }, mini, sonnet),
    ).toBeCloseTo((50_000 * 0.15 + 2_000 * 0.6) / 3);
  });

  it("is the same model's full price, nothing read from a cache, when it is the session's", () => {
    expect(
      separateSummaryCostTokens({ inputTokens: 50_000, outputTokens: 2_000 }, sonnet, sonnet),
    ).toBe(50_000 + 2_000 * 5);
  });
});

describe("the policy with the summary read from the cache", () => {
  const anthropic = modelPricing("claude-sonnet-4-5");
  const state = { excessTokens: 0, compactedTokens: 9_000, stableTokens: 1_000 };
  const base = { floorTokens: 16_000, pricing: anthropic, expectedCompactedTokens: 9_000 };
  /** The first context size, growing 1,000 tokens a turn, at which the policy compacts. */
  function firstCompaction(summaryCost: (tokens: number) => number): number {
    let excess = 0;
    for (let tokens = 16_000; tokens < 200_000; tokens += 1_000) {
      const decision = decideCostCompaction({
        ...base,
        tokens,
        state: { ...state, excessTokens: excess },
        summarizerCostTokens: summaryCost(tokens),
      });
      if (decision.compact) return tokens;
      excess = decision.excessTokens;
    }
    return Number.POSITIVE_INFINITY;
  }

  it("waits less than for the same summary sent whole to the session's model", () => {
    const cached = (tokens: number) =>
      cachedSummaryCostTokens(
        { promptTokens: tokens, instructionTokens: 700, outputTokens: 2_000 },
        anthropic,
      );
    const whole = (tokens: number) =>
      separateSummaryCostTokens(
        { inputTokens: tokens + 700, outputTokens: 2_000 },
        anthropic,
        anthropic,
      );
    const free = firstCompaction(() => 0);
    const viaCache = firstCompaction(cached);
    const sentWhole = firstCompaction(whole);
    expect(free).toBeLessThan(viaCache);
    expect(viaCache).toBeLessThan(sentWhole);
  });

  it("costs a tenth of sending the prompt again for its prompt, whatever its size (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.integer({ min: 0, max: 5_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (promptTokens, instructionTokens, outputTokens) => {
          const cached = cachedSummaryCostTokens(
            { promptTokens, instructionTokens, outputTokens },
            anthropic,
          );
          const whole = separateSummaryCostTokens(
            { inputTokens: promptTokens + instructionTokens, outputTokens },
            anthropic,
            anthropic,
          );
          expect(whole - cached).toBeCloseTo(promptTokens * (1 - anthropic.cacheRead), 6);
        },
      ),
    );
  });
});
