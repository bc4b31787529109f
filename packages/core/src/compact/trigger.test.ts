import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../errors/condense-error.js";
import { shouldCompact } from "./trigger.js";

describe("shouldCompact", () => {
  it("fires over threshold × window (policy window)", () => {
    const window = { policy: "window" } as const;
    expect(shouldCompact({ model: "gpt-4o", tokens: 96_000 }, window).compact).toBe(false);
    const over = shouldCompact({ model: "gpt-4o", tokens: 96_001 }, window);
    expect(over.compact).toBe(true);
    expect(over.reason).toBe("over_threshold");
    expect(over.triggerTokens).toBe(96_000);
  });

  it("fires from half the window when a deep compaction would halve the context (policy cost, no state)", () => {
    const under = shouldCompact({ model: "gpt-4o", tokens: 63_999 });
    expect(under).toMatchObject({ compact: false, reason: "within_limits", triggerTokens: 64_000 });
    expect(under.cacheState).toBeUndefined();
    expect(shouldCompact({ model: "gpt-4o", tokens: 64_000 })).toMatchObject({
      compact: true,
      reason: "pays_off",
    });
    // The limit still forces a compaction, whatever the policy says.
    expect(shouldCompact({ model: "gpt-4o", tokens: 96_001 }).reason).toBe("over_threshold");
    // A 16k window: the expected compacted context (2,000 summary + 2,000 tail + 1,000) is 5,000,
    // so the floor (8,000) would not halve it; the limit (8,000) is what fires.
    const small = { contextWindow: 16_000 };
    expect(shouldCompact({ model: "gpt-4o", tokens: 8_000 }, small).compact).toBe(false);
    expect(shouldCompact({ model: "gpt-4o", tokens: 8_001 }, small).reason).toBe("under_reserve");
  });

  it("carries the excess read and fires when it pays for the bust (policy cost, with state)", () => {
    // Anthropic's prices: the break-even excess is (1.25 / 0.1 − 1) × (10,000 − 2,000) = 92,000.
    const options = {
      contextWindow: 100_000,
      pricing: { cacheWrite: 1.25, cacheRead: 0.1 },
      cacheState: { excessTokens: 40_000, compactedTokens: 10_000, stableTokens: 2_000 },
    };
    const first = shouldCompact({ model: "claude-sonnet-4-5", tokens: 60_000 }, options);
    expect(first).toMatchObject({ compact: false, reason: "within_limits" });
    expect(first.cacheState).toEqual({ ...options.cacheState, excessTokens: 90_000 });
    const next = shouldCompact(
      { model: "claude-sonnet-4-5", tokens: 60_000 },
      { ...options, cacheState: first.cacheState },
    );
    expect(next).toMatchObject({ compact: true, reason: "pays_off" });
  });

  it("respects an explicit threshold: the cost policy never compacts below it (Hermes' should_compress)", () => {
    // Hermes asks at 50,000 of 100,000 with threshold 0.85, and expects no compaction.
    const hermes = { contextWindow: 100_000, threshold: 0.85 };
    const half = shouldCompact({ model: "gpt-4o", tokens: 50_000 }, hermes);
    expect(half).toMatchObject({ compact: false, reason: "within_limits", triggerTokens: 80_000 });
    // Even when compacting would pay off by the carried state.
    const paying = shouldCompact(
      { model: "gpt-4o", tokens: 79_000 },
      { ...hermes, cacheState: { excessTokens: 1e9, compactedTokens: 5_000, stableTokens: 0 } },
    );
    expect(paying.compact).toBe(false);
    // Past the budget (the window less its 20,000 reserve) a compaction is still forced.
    expect(shouldCompact({ model: "gpt-4o", tokens: 80_001 }, hermes).compact).toBe(true);
  });

  it("refuses an explicit floor under an explicit threshold, naming both", () => {
    const error = catchOf(() =>
      shouldCompact({ model: "gpt-4o", tokens: 1_000 }, { threshold: 0.85, floor: 0.5 }),
    );
    expect(InvalidOptionsError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ option: "floor" });
    expect((error as Error).message).toMatch(/0\.5.*0\.85/);
  });

  it("fires when the free space falls under the reserve", () => {
    const decision = shouldCompact({ model: "gpt-4o", tokens: 110_000 }, { threshold: 0.95 });
    expect(decision.reason).toBe("under_reserve");
    expect(decision.budget).toBe(108_000);
  });

  it("reports the warning level", () => {
    expect(shouldCompact({ model: "gpt-4o", tokens: 110_000 }).warningLevel).toBe("warning");
    expect(shouldCompact({ model: "gpt-4o", tokens: 130_000 }).warningLevel).toBe("critical");
    expect(shouldCompact({ model: "gpt-4o", tokens: 1_000 }).warningLevel).toBe("none");
  });

  it("rejects a state without a model name or a token count", () => {
    const states = [
      null,
      { model: "gpt-4o", tokens: "many" },
      { model: "gpt-4o", tokens: -1 },
      { tokens: 5 },
    ];
    for (const state of states) {
      expect(() => shouldCompact(state as never)).toThrow(
        expect.objectContaining({ code: "invalid_options" }),
      );
    }
    expect(InvalidOptionsError.isInstance(catchOf(() => shouldCompact(null as never)))).toBe(true);
  });
  it("compacts past the floor when the provider's cache has gone cold since its last read", () => {
    const options = {
      contextWindow: 100_000,
      pricing: { cacheWrite: 1.25, cacheRead: 0.1 },
      cacheState: { excessTokens: 0, compactedTokens: 10_000, stableTokens: 2_000 },
      now: 10 * 60_000,
    };
    const model = { model: "claude-sonnet-4-5", tokens: 60_000 };
    // Read 4 minutes ago: warm (Anthropic keeps it 5), the bust is not paid for yet.
    expect(shouldCompact(model, { ...options, cacheLastReadAt: 6 * 60_000 })).toMatchObject({
      compact: false,
      reason: "within_limits",
    });
    // Read 6 minutes ago: cold, compacting breaks nothing.
    expect(shouldCompact(model, { ...options, cacheLastReadAt: 4 * 60_000 })).toMatchObject({
      compact: true,
      reason: "cold_cache",
    });
    // Under the floor it waits, cold or not; and a bad time is refused by name.
    expect(
      shouldCompact({ ...model, tokens: 40_000 }, { ...options, cacheLastReadAt: 0 }).compact,
    ).toBe(false);
    expect(() => shouldCompact(model, { ...options, cacheLastReadAt: "soon" as never })).toThrow(
      /cacheLastReadAt/,
    );
  });
});

function catchOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
