import { describe, expect, it } from "vitest";
import { PRICINGS } from "./pricings.ts";
import type { PricedReplay } from "./replay-record.ts";
import { compact95SummaryCost, SUMMARY_INSTRUCTION_TOKENS, summaryCosts } from "./summaries.ts";

const anthropic = PRICINGS.find((pricing) => pricing.name === "Anthropic");
if (anthropic === undefined) throw new Error("no Anthropic pricing");

const replay = (compactions: PricedReplay["compactions"]): PricedReplay => ({
  model: anthropic.model,
  wholeTokens: 0,
  generations: [],
  compactions,
  replayMs: 0,
});

describe("summaryCosts", () => {
  it("prices each summary sent whole and through the cache (Sonnet: reads 0.1, output 5×)", () => {
    const costs = summaryCosts(
      replay([
        { tier: 2, tokensBefore: 16_000, tokensAfter: 9_000, summaryTokens: 1_000 },
        { tier: 1, tokensBefore: 16_000, tokensAfter: 12_000, summaryTokens: 0 },
      ]),
      anthropic,
    );
    expect(costs.count).toBe(1);
    expect(costs.sentWhole).toBeCloseTo(8_000 + SUMMARY_INSTRUCTION_TOKENS + 5_000);
    expect(costs.throughCache).toBeCloseTo(1_600 + SUMMARY_INSTRUCTION_TOKENS + 5_000);
  });

  it("prices compact-at-95's summaries through the cache at 95% of the window", () => {
    expect(compact95SummaryCost(2, 32_000, anthropic)).toBeCloseTo(
      2 * (30_400 * 0.1 + SUMMARY_INSTRUCTION_TOKENS + 2_000 * 5),
    );
  });
});
