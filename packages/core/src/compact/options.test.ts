import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../errors/condense-error.js";
import { resolveOptions } from "./options.js";

describe("resolveOptions", () => {
  it("applies the documented defaults for a 128k model", () => {
    const resolved = resolveOptions("gpt-4o");
    expect(resolved.contextWindow).toBe(128_000);
    expect(resolved.threshold).toBe(0.75);
    expect(resolved.reserveTokens).toBe(20_000);
    expect(resolved.budget).toBe(108_000);
    expect(resolved.limit).toBe(96_000);
    expect(resolved.target).toBe(76_800);
    expect(resolved.minSummarizableTokens).toBe(2_000);
    expect(resolved.summaryMinTokens).toBe(2_000);
    expect(resolved.headMessages).toBe(3);
    // Policy cost: deep compactions past half the window, a tail of 5% of it.
    expect(resolved.policy).toBe("cost");
    expect(resolved.floor).toBe(0.5);
    expect(resolved.tailTokens).toBe(6_400);
    expect(resolved.pricing).toMatchObject({ source: "catalog", inputPerMillion: 2.5 });
    expect(resolved.cacheState).toBeUndefined();
    expect(resolved.summarizerCostTokens).toBe(0);
    expect(resolveOptions("gpt-4o", { policy: "window" }).tailTokens).toBe(20_000);
    expect(resolved.minTailMessages).toBe(4);
    expect(resolved.identifierPolicy).toBe("strict");
    expect(resolved.summarizer.kind).toBe("extractive");
  });

  it("floors the reserve at 20k and caps it at half of a small window", () => {
    expect(resolveOptions("gpt-4o", { reserveTokens: 5_000 }).reserveTokens).toBe(20_000);
    expect(resolveOptions("gpt-4o", { maxOutputTokens: 32_000 }).reserveTokens).toBe(32_000);
    const small = resolveOptions("gpt-4o", { contextWindow: "32k" });
    expect(small.reserveTokens).toBe(16_000);
    // The cost policy's tail is at least 2,000 tokens.
    expect(small.tailTokens).toBe(2_000);
    // The window policy's default tail is capped at half the aim (12,800), like an explicit one.
    expect(resolveOptions("gpt-4o", { contextWindow: "32k", policy: "window" }).tailTokens).toBe(
      6_400,
    );
    // Small windows scale what is worth a summary and how small a summary may be.
    const tiny = resolveOptions("gpt-4o", { contextWindow: 8_000 });
    expect(tiny.limit).toBe(4_000);
    expect(tiny.minSummarizableTokens).toBe(250);
    expect(tiny.summaryMinTokens).toBe(800);
  });

  it("lets an explicit floor above a small window's default limit take the reserve's room", () => {
    // At 32k the default reserve (20,000, capped at half) leaves a 16,000 limit: a floor of 0.6
    // (19,200) would be clamped to it and change nothing.
    const raised = resolveOptions("gpt-4o", { contextWindow: "32k", floor: 0.6 });
    expect(raised.reserveTokens).toBe(12_800);
    expect(raised.limit).toBe(19_200);
    // Never past the threshold: a floor of 0.9 gives way to the 0.75 limit (24,000).
    const high = resolveOptions("gpt-4o", { contextWindow: "32k", floor: 0.9 });
    expect([high.reserveTokens, high.limit]).toEqual([8_000, 24_000]);
    // The floor a window already holds, the window policy, and an explicit reserve change nothing.
    expect(resolveOptions("gpt-4o", { contextWindow: "32k", floor: 0.5 }).limit).toBe(16_000);
    expect(resolveOptions("gpt-4o", { floor: 0.6 }).reserveTokens).toBe(20_000);
    expect(
      resolveOptions("gpt-4o", { contextWindow: "32k", floor: 0.6, policy: "window" }).limit,
    ).toBe(16_000);
    expect(
      resolveOptions("gpt-4o", { contextWindow: "32k", floor: 0.6, reserveTokens: 16_000 }).limit,
    ).toBe(16_000);
  });

  it("keeps the recent reads within the tail where the limit leaves the cost policy no room", () => {
    // 32k: the limit (16,000) is the floor (0.5 × 32k), so every compaction fires there and the
    // interval to the next is what it frees; the last turns' outputs stay whole only within the
    // tail (docs/notes/small-windows.md). 16k likewise.
    expect(resolveOptions("gpt-4o", { contextWindow: "32k" }).recentReadTokens).toBe(2_000);
    expect(resolveOptions("gpt-4o", { contextWindow: "16k" }).recentReadTokens).toBe(2_000);
    expect(resolveOptions("gpt-4o", { contextWindow: "32k", floor: 0.6 }).recentReadTokens).toBe(
      2_000,
    );
    // Room between the floor and the limit (64k, 128k, a floor under a small window's limit):
    // half the aim.
    expect(resolveOptions("gpt-4o", { contextWindow: "64k" }).recentReadTokens).toBe(17_600);
    expect(resolveOptions("gpt-4o").recentReadTokens).toBe(38_400);
    expect(resolveOptions("gpt-4o", { contextWindow: "32k", floor: 0.4 }).recentReadTokens).toBe(
      6_400,
    );
    // There the tail's least count of messages is the last turn's two, not four: four held the
    // turn before's output whatever its size.
    expect(resolveOptions("gpt-4o", { contextWindow: "32k" }).minTailMessages).toBe(2);
    expect(resolveOptions("gpt-4o", { contextWindow: "64k" }).minTailMessages).toBe(4);
    expect(
      resolveOptions("gpt-4o", { contextWindow: "32k", minTailMessages: 4 }).minTailMessages,
    ).toBe(4);
    // The window policy compacts late and keeps them within half the aim at every window.
    expect(
      resolveOptions("gpt-4o", { contextWindow: "32k", policy: "window" }).recentReadTokens,
    ).toBe(6_400);
    // There each of the last two turns stays, within half the tail by itself (its outputs cut to
    // head and tail past it); elsewhere they stay whole or go to the summary.
    expect(resolveOptions("gpt-4o", { contextWindow: "32k" }).recentTurnTokens).toBe(1_000);
    expect(resolveOptions("gpt-4o", { contextWindow: "16k" }).recentTurnTokens).toBe(1_000);
    expect(resolveOptions("gpt-4o", { contextWindow: "64k" }).recentTurnTokens).toBeUndefined();
    expect(
      resolveOptions("gpt-4o", { contextWindow: "32k", floor: 0.4 }).recentTurnTokens,
    ).toBeUndefined();
    expect(
      resolveOptions("gpt-4o", { contextWindow: "32k", policy: "window" }).recentTurnTokens,
    ).toBeUndefined();
  });

  it("caps the default tail at half the aim, as it does an explicit one", () => {
    // A 2,000-token window at threshold 0.25: trigger 500, aim 400.
    const tiny = resolveOptions("gpt-4o", { contextWindow: 2_000, threshold: 0.25 });
    expect(tiny.target).toBe(400);
    expect(tiny.tailTokens).toBe(200);
    expect(
      resolveOptions("gpt-4o", { contextWindow: 2_000, threshold: 0.25, policy: "window" })
        .tailTokens,
    ).toBe(200);
    expect(
      resolveOptions("gpt-4o", { contextWindow: 2_000, threshold: 0.25, tailTokens: 1_000 })
        .tailTokens,
    ).toBe(200);
    expect(
      resolveOptions("gpt-4o", { contextWindow: 2_000, threshold: 0.25, tailTokens: 100 })
        .tailTokens,
    ).toBe(100);
    // Large windows: the window policy keeps the 20,000 default, the cost policy takes 5%.
    expect(resolveOptions("gpt-4o", { contextWindow: 200_000, policy: "window" }).tailTokens).toBe(
      20_000,
    );
    expect(resolveOptions("gpt-4o", { contextWindow: 200_000 }).tailTokens).toBe(10_000);
  });

  it("rejects bad values with the option named", () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ threshold: 1.5 }, "threshold"],
      [{ policy: "cheap" }, "policy"],
      [{ floor: 1.5 }, "floor"],
      [{ floor: "half" }, "floor"],
      [{ pricing: 0.1 }, "pricing"],
      [{ pricing: { cacheRead: -1 } }, "pricing.cacheRead"],
      [{ cacheState: { excessTokens: 1 } }, "cacheState"],
      [{ cacheState: { excessTokens: -1, compactedTokens: 1, stableTokens: 0 } }, "cacheState"],
      [{ summarizerCostTokens: -5 }, "summarizerCostTokens"],
      [{ threshold: "high" }, "threshold"],
      [{ headMessages: -1 }, "headMessages"],
      [{ tailTokens: 1.5 }, "tailTokens"],
      [{ identifierPolicy: "loose" }, "identifierPolicy"],
      [{ identifierPolicy: "custom" }, "identifierInstructions"],
      [{ summarizer: {} }, "summarizer"],
      [{ now: "yesterday" }, "now"],
      [{ summaryMinTokens: 5_000, summaryMaxTokens: 1_000 }, "summaryMaxTokens"],
      [{ signal: {} }, "signal"],
      [{ signal: "abort" }, "signal"],
    ];
    for (const [options, option] of cases) {
      let caught: unknown;
      try {
        resolveOptions("gpt-4o", options);
      } catch (error) {
        caught = error;
      }
      expect(InvalidOptionsError.isInstance(caught), option).toBe(true);
      expect((caught as InvalidOptionsError).option).toBe(option);
    }
  });

  it("rejects options that are not an object, and takes null as none", () => {
    for (const options of ["fast", 5, [1]]) {
      let caught: unknown;
      try {
        resolveOptions("gpt-4o", options as never);
      } catch (error) {
        caught = error;
      }
      expect(InvalidOptionsError.isInstance(caught), String(options)).toBe(true);
    }
    expect(resolveOptions("gpt-4o", null as never).threshold).toBe(0.75);
  });
});

describe("resolveOptions summaryAnchor", () => {
  const ledger = { identifiers: [], files: { read: [], modified: [] }, userRequests: [] };

  it("reads the digest a previous result returned, and none without one", () => {
    const digest = "a".repeat(64);
    expect(
      resolveOptions("gpt-4o", { ledger: { ...ledger, summarySha256: digest } }).summaryAnchor,
    ).toBe(digest);
    expect(resolveOptions("gpt-4o", { ledger }).summaryAnchor).toBeUndefined();
    expect(resolveOptions("gpt-4o", undefined).summaryAnchor).toBeUndefined();
  });

  it("rejects anything but 64 lowercase hex digits", () => {
    for (const bad of ["abc", "A".repeat(64), 42]) {
      expect(() =>
        resolveOptions("gpt-4o", { ledger: { ...ledger, summarySha256: bad as string } }),
      ).toThrow(InvalidOptionsError);
    }
  });
});
