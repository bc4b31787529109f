import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CachePricing } from "./prompt-cache.js";
import { billTurns, rollUpTurns, type ServedTurn, type TurnEntry } from "./turn-bill.js";

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

/** Open-ended sessions: sizes, prefixes kept, gaps (some past the cache's lifetime), usage or none. */
const turnsArb = fc
  .array(
    fc.record({
      tokens: fc.integer({ min: 0, max: 40_000 }),
      keep: fc.double({ min: 0, max: 1, noNaN: true }),
      whole: fc.integer({ min: 0, max: 80_000 }),
      gapMs: fc.integer({ min: 0, max: 20 * 60_000 }),
      usage: fc.option(
        fc.record({
          inputTokens: fc.integer({ min: 0, max: 40_000 }),
          cacheReadTokens: fc.integer({ min: 0, max: 20_000 }),
          cacheWriteTokens: fc.integer({ min: 0, max: 20_000 }),
        }),
        { nil: undefined },
      ),
    }),
    { minLength: 1, maxLength: 40 },
  )
  .map((raw) => {
    let at = 0;
    return raw.map((turn): ServedTurn => {
      at += turn.gapMs;
      const whole = Math.max(turn.whole, turn.tokens);
      return {
        at,
        tokens: turn.tokens,
        reusedTokens: Math.floor(turn.tokens * turn.keep),
        wholeTokens: whole,
        wholeReusedTokens: Math.floor(whole * turn.keep),
        usage: turn.usage,
      };
    });
  });

/** `turns` with the ones in [from, to) rolled up into one entry. */
function rolled(pricing: CachePricing, turns: ServedTurn[], from: number, to: number): TurnEntry[] {
  const before = turns[from - 1];
  return [
    ...turns.slice(0, from),
    rollUpTurns(pricing, turns.slice(from, to), before),
    ...turns.slice(to),
  ];
}

describe("rollUpTurns", () => {
  it("sums what it replaces: the bill before and after a rollup is equal, to the last bit", () => {
    fc.assert(
      fc.property(turnsArb, fc.nat(), fc.nat(), (turns, a, b) => {
        const from = a % turns.length;
        const to = from + 1 + (b % (turns.length - from));
        for (const pricing of [anthropic, gpt5]) {
          const whole = billTurns(pricing, turns);
          const after = billTurns(pricing, rolled(pricing, turns, from, to));
          const { running: _r1, ...totals } = whole;
          const { running: _r2, ...rolledTotals } = after;
          expect(rolledTotals).toEqual(totals);
          // The chart keeps the points outside the rollup and one point where it ends, measured
          // when every turn it holds was.
          const costs = (points: typeof whole.running) =>
            points.map((point) => [point.condense, point.wholeHistory]);
          expect(costs(after.running)).toEqual([
            ...costs(whole.running.slice(0, from)),
            ...costs(whole.running.slice(to - 1)),
          ]);
          const inside = whole.running.slice(from, to);
          expect(after.running[from]?.basis).toBe(
            inside.every((point) => point.basis === "usage") ? "usage" : "estimated",
          );
        }
      }),
    );
  });

  it("rolls up rollups: a rollup of a rollup and the turns after it sums the same", () => {
    fc.assert(
      fc.property(turnsArb, (turns) => {
        const half = Math.floor(turns.length / 2);
        const first = rollUpTurns(anthropic, turns.slice(0, half));
        const both = rollUpTurns(anthropic, [first, ...turns.slice(half)]);
        const { running: _r1, ...direct } = billTurns(anthropic, turns);
        const { running: _r2, ...twice } = billTurns(anthropic, [both]);
        expect(twice).toEqual(direct);
      }),
    );
  });
});

describe("the bill's basis", () => {
  const turn = (tokens: number, reused: number): ServedTurn => ({
    tokens,
    reusedTokens: reused,
    wholeTokens: tokens,
    wholeReusedTokens: reused,
  });

  it("prices a turn whose usage was reported as the provider counted it, and says which turns were measured", () => {
    const measured = {
      ...turn(5_000, 0),
      usage: { inputTokens: 5_100, cacheReadTokens: 0, cacheWriteTokens: 0 },
    };
    const bill = billTurns(anthropic, [measured, turn(5_500, 5_000)]);
    expect(bill.measuredTurns).toBe(1);
    expect(bill.basis).toBe("mixed");
    expect(bill.running.map((point) => point.basis)).toEqual(["usage", "estimated"]);
    // The first turn sent 5,100 uncached (no breakpoint reached the provider), not a 5,000 write.
    expect(bill.running[0]?.condense).toBe(5_100);
    // The estimate of the second: 5,000 read, 500 written.
    expect(bill.condense.cost).toBeCloseTo(5_100 + 500 + 625, 9);
    expect(billTurns(anthropic, [measured]).basis).toBe("usage");
    expect(billTurns(anthropic, [turn(5_000, 0)]).basis).toBe("estimated");
  });
});
