import { describe, expect, it } from "vitest";
import type { CompactionList } from "../api/types.ts";
import { describeBill, describeCacheMisses } from "./bill-words.ts";

type Bill = CompactionList["bill"];

const bill = (fields: Partial<Bill>): Bill => ({
  model: "gpt-4o",
  turns: 30,
  dollars: 0.05,
  wholeHistoryDollars: 0.08,
  ratio: 0.625,
  costTokens: 20_000,
  wholeHistoryCostTokens: 32_000,
  cacheBusts: 3,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  basis: "estimated",
  measuredTurns: 0,
  coldTurns: 0,
  reported: { turns: 0, inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, dollars: null },
  summaries: {
    count: 0,
    inputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    costTokens: 0,
    dollars: null,
  },
  ...fields,
});

describe("describeBill", () => {
  it("says the bill was estimated when no usage was reported", () => {
    expect(describeBill(bill({}))).toBe(
      "$0.0500 of input (gpt-4o) against $0.0800 for the whole history: 0.63× over 30 turns, 3 cache busts, 0 on a cold cache; estimated from the contexts served (no usage reported)",
    );
  });

  it("says the bill was measured when every turn's usage was reported", () => {
    expect(describeBill(bill({ basis: "usage", measuredTurns: 30 }))).toContain(
      "; measured from the provider's usage (the whole history's side estimated)",
    );
  });

  it("says how many turns were measured when some were, and counts the cold ones", () => {
    const words = describeBill(bill({ basis: "mixed", measuredTurns: 12, coldTurns: 2 }));
    expect(words).toContain("3 cache busts, 2 on a cold cache");
    expect(words).toContain("; 12 of 30 turns measured from the provider's usage, 18 estimated");
  });

  it("says so before any turn", () => {
    expect(describeBill(bill({ ratio: null, turns: 0 }))).toBe("No model request served yet.");
  });
});

describe("describeCacheMisses", () => {
  type Point = CompactionList["costSeries"][number];
  const point = (lastSeq: number, cacheMiss: Point["cacheMiss"]): Point => ({
    lastSeq,
    costTokens: 0,
    wholeHistoryCostTokens: 0,
    basis: "usage",
    cacheMiss,
  });

  it("names each turn the provider said its cache missed on, with the tokens it missed", () => {
    expect(
      describeCacheMisses([
        point(4, null),
        point(9, { reason: "system_changed", missedTokens: 1_200 }),
        point(12, { reason: "previous_message_not_found", missedTokens: null }),
      ]),
    ).toEqual([
      "turn after message 9: system_changed, 1,200 tokens missed",
      "turn after message 12: previous_message_not_found",
    ]);
    expect(describeCacheMisses([point(4, null)])).toEqual([]);
  });
});
