import { describe, expect, it } from "vitest";
import type { CachePricing } from "./prompt-cache.js";
import { PromptCacheBiller } from "./prompt-cache.js";
import { billTurns, type ServedTurn } from "./turn-bill.js";

const anthropic: CachePricing = {
  name: "Anthropic",
  model: "claude-sonnet-4-5",
  caching: "breakpoints",
  cacheWrite: 1.25,
  cacheRead: 0.1,
  minTokens: 1_024,
  blockTokens: 1,
  inputPerMillion: 3,
};
const gpt5: CachePricing = {
  ...anthropic,
  name: "GPT-5",
  model: "gpt-5",
  caching: "prefix",
  cacheWrite: 1,
  blockTokens: 128,
  inputPerMillion: 1.25,
};

/** A session that grows by `growth` per turn and never compacts: both sides send the same. */
function growing(turns: number, start: number, growth: number): ServedTurn[] {
  return Array.from({ length: turns }, (_, index) => {
    const tokens = start + index * growth;
    const reused = index === 0 ? 0 : tokens - growth;
    return { tokens, reusedTokens: reused, wholeTokens: tokens, wholeReusedTokens: reused };
  });
}

describe("billTurns", () => {
  it("bills a session that never compacted as the whole history: ratio 1", () => {
    for (const pricing of [anthropic, gpt5]) {
      const bill = billTurns(pricing, growing(20, 2_000, 500));
      expect(bill.ratio).toBe(1);
      expect(bill.condense.cost).toBe(bill.wholeHistory.cost);
      expect(bill.condense.busts).toBe(0);
    }
  });

  it("prices each turn as the bench's biller prices the same requests", () => {
    // Requests as message lists: each turn appends one 500-token message to the last.
    for (const pricing of [anthropic, gpt5]) {
      const biller = new PromptCacheBiller(pricing);
      const keys: string[] = [];
      const tokens: number[] = [];
      for (let turn = 0; turn < 12; turn++) {
        keys.push(`m${turn}`);
        tokens.push(turn === 0 ? 2_000 : 500);
        biller.bill({ keys: [...keys], tokens: [...tokens], breakpoints: [keys.length] });
      }
      const bill = billTurns(pricing, growing(12, 2_000, 500));
      expect(bill.condense.cost).toBeCloseTo(biller.totals.cost, 6);
      expect(bill.condense.readTokens).toBe(biller.totals.read);
    }
  });

  it("counts a compaction's cache bust, and the turns after it read less than the whole history", () => {
    const turns: ServedTurn[] = [
      ...growing(10, 10_000, 1_000),
      // The compaction keeps a 1,500-token prefix and leaves 6,000.
      { tokens: 6_000, reusedTokens: 1_500, wholeTokens: 20_000, wholeReusedTokens: 19_000 },
      ...growing(10, 7_000, 1_000).map((turn, index) => ({
        ...turn,
        reusedTokens: index === 0 ? 6_000 : turn.reusedTokens,
        wholeTokens: 21_000 + index * 1_000,
        wholeReusedTokens: 20_000 + index * 1_000,
      })),
    ];
    const bill = billTurns(anthropic, turns);
    expect(bill.condense.busts).toBe(1);
    expect(bill.running).toHaveLength(turns.length);
    expect(bill.running.at(-1)).toEqual({
      condense: bill.condense.cost,
      wholeHistory: bill.wholeHistory.cost,
      basis: "estimated",
    });
    // Equal until the compaction, cheaper after it.
    expect(bill.running[9]?.condense).toBe(bill.running[9]?.wholeHistory);
    expect(bill.ratio).not.toBeNull();
    expect(bill.ratio ?? 1).toBeLessThan(1);
    expect(bill.condense.dollars).toBeCloseTo((bill.condense.cost * 3) / 1_000_000, 12);
  });

  it("prices the reported usage apart, as the provider counted it", () => {
    const turns: ServedTurn[] = [
      {
        tokens: 5_000,
        reusedTokens: 0,
        wholeTokens: 5_000,
        wholeReusedTokens: 0,
        usage: { inputTokens: 5_100, cacheReadTokens: 0, cacheWriteTokens: 5_000 },
      },
      {
        tokens: 5_500,
        reusedTokens: 5_000,
        wholeTokens: 5_500,
        wholeReusedTokens: 5_000,
        usage: { inputTokens: 5_600, cacheReadTokens: 5_000, cacheWriteTokens: 500 },
      },
      { tokens: 6_000, reusedTokens: 5_500, wholeTokens: 6_000, wholeReusedTokens: 5_500 },
    ];
    const bill = billTurns(anthropic, turns);
    expect(bill.reported.turns).toBe(2);
    expect(bill.reported.inputTokens).toBe(10_700);
    // 100 uncached + 5,000 written; then 5,000 read, 500 written, 100 uncached.
    expect(bill.reported.cost).toBeCloseTo(100 + 6_250 + 500 + 625 + 100, 6);
  });

  it("has no ratio before any turn", () => {
    expect(billTurns(gpt5, []).ratio).toBeNull();
  });

  it("bills a turn after the cache's lifetime as a full write, on both sides, and not as a bust", () => {
    const minute = 60_000;
    // Three turns a minute apart, then one 20 minutes later (past Anthropic's 5 and OpenAI's 10).
    const turns = growing(4, 2_000, 500).map((turn, index) => ({
      ...turn,
      at: index < 3 ? index * minute : 22 * minute,
    }));
    for (const pricing of [anthropic, gpt5]) {
      const warm = billTurns(pricing, growing(4, 2_000, 500));
      const cold = billTurns(pricing, turns);
      // The last turn (3,500 tokens) reads nothing of the 3,000 it read warm (2,944 in 128-token blocks).
      const lost = warm.condense.readTokens - cold.condense.readTokens;
      expect(lost).toBe(pricing.caching === "prefix" ? 2_944 : 3_000);
      const extra = (pricing.cacheWrite - pricing.cacheRead) * lost;
      expect(cold.condense.cost).toBeCloseTo(warm.condense.cost + extra, 6);
      expect(cold.wholeHistory.cost).toBeCloseTo(warm.wholeHistory.cost + extra, 6);
      expect(cold.condense.busts).toBe(0);
      expect(cold.coldTurns).toBe(1);
      expect(warm.coldTurns).toBe(0);
    }
  });
});
