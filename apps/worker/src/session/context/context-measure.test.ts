import { type ChatMessage, contextWindowFor, messageTokens } from "@condense/core";
import { describe, expect, it } from "vitest";
import type { SessionRow } from "../store/session-record";
import { DEFAULT_SETTINGS, type SessionSettings } from "../store/settings";
import { measureContext } from "./context-measure";

const pin: ChatMessage = { role: "user", content: "Always answer in French." };

function session(overrides: Partial<SessionRow> = {}): SessionRow {
  return {
    userId: "u",
    sessionId: "s",
    epoch: "e",
    createdAt: 0,
    updatedAt: 0,
    lastModel: null,
    messageCount: 0,
    transcriptTokens: 0,
    cooldownUntil: null,
    calibrationRatio: 1,
    calibrationSamples: 0,
    pendingTrigger: null,
    pendingDueAt: null,
    exhaustedSeq: null,
    ledger: null,
    learnedWindow: null,
    learnedWindowModel: null,
    servedTokens: null,
    servedSeq: null,
    failedAttempts: 0,
    lastFailureAt: null,
    lastFailure: null,
    retryAt: null,
    overheadTokens: 0,
    cacheExcessTokens: null,
    cacheCompactedTokens: null,
    cacheStableTokens: null,
    memoryBlock: null,
    memoryBlockCompaction: null,
    ...overrides,
  };
}

function settings(overrides: Partial<SessionSettings> = {}): SessionSettings {
  return { ...DEFAULT_SETTINGS, ...overrides };
}

describe("measureContext", () => {
  it("hands the engine the calibrated window minus the pinned messages, and reports calibrated figures", () => {
    const model = "claude-sonnet-4";
    const pinnedTokens = messageTokens(pin, model);
    const measure = measureContext(
      session({ lastModel: model, calibrationRatio: 1.5 }),
      settings({ contextWindow: 90_000, pinned: [pin] }),
      10_000,
      undefined,
    );
    expect(measure.model).toBe(model);
    expect(measure.calibrationRatio).toBe(1.5);
    expect(measure.pinnedTokens).toBe(pinnedTokens);
    expect(measure.engineWindow).toBe(60_000 - pinnedTokens);
    expect(measure.tokens).toBe(Math.round((10_000 + pinnedTokens) * 1.5));
    expect(measure.contextWindow).toBe(90_000);
  });

  it("keeps room for the request's overhead as for pinned messages, and knows the target it costs", () => {
    const base = settings({ contextWindow: 32_000 });
    const without = measureContext(session(), base, 5_000, "gpt-4o");
    const tools = measureContext(session({ overheadTokens: 12_000 }), base, 5_000, "gpt-4o");
    expect(without.overhead).toBeUndefined();
    expect(tools.overheadTokens).toBe(12_000);
    expect(tools.engineWindow).toBe(20_000);
    // The reported window is still the whole one; what the messages may hold is smaller.
    expect(tools.contextWindow).toBe(32_000);
    expect(tools.budget).toBeLessThan(without.budget);
    expect(tools.engineTarget).toBeLessThan(without.engineTarget);
    expect(tools.overhead).toEqual({ targetWithout: without.engineTarget, regrowthTokens: 8_000 });
    // An overhead over the window leaves the engine one token, and the context critical.
    const over = measureContext(session({ overheadTokens: 40_000 }), base, 5_000, "gpt-4o");
    expect(over.engineWindow).toBe(1);
    expect(over.warningLevel).toBe("critical");
  });

  it("never calibrates OpenAI models, whose tokens are counted exactly", () => {
    const measure = measureContext(session({ calibrationRatio: 1.5 }), settings(), 1_000, "gpt-4o");
    expect(measure.model).toBe("gpt-4o");
    expect(measure.calibrationRatio).toBe(1);
    expect(measure.tokens).toBe(1_000);
    expect(measure.contextWindow).toBe(contextWindowFor("gpt-4o"));
  });

  it("asks for a compaction above threshold × window, and warns above window − reserve", () => {
    const base = settings({ contextWindow: 100_000, threshold: 0.5, reserveTokens: 30_000 });
    const below = measureContext(session(), base, 49_000, "gpt-4o");
    const above = measureContext(session(), base, 51_000, "gpt-4o");
    const over = measureContext(session(), base, 75_000, "gpt-4o");
    expect([below.compactionDue, above.compactionDue, over.compactionDue]).toEqual([
      false,
      true,
      true,
    ]);
    expect(below.triggerTokens).toBe(50_000);
    expect(over.budget).toBe(70_000);
    expect([below.warningLevel, over.warningLevel]).toEqual(["none", "warning"]);
  });
  it("uses a window a provider stated for the model when it is below the configured one", () => {
    const learned = session({ learnedWindow: 8_192, learnedWindowModel: "gpt-4o" });
    expect(measureContext(learned, settings(), 1_000, "gpt-4o").contextWindow).toBe(8_192);
    // The engine caps the reserve at half a small window.
    expect(measureContext(learned, settings(), 1_000, "gpt-4o").budget).toBe(4_096);
    expect(
      measureContext(learned, settings({ contextWindow: 6_000 }), 1_000, "gpt-4o").contextWindow,
    ).toBe(6_000);
    // Learned for another model: not this one's.
    expect(measureContext(learned, settings(), 1_000, "gpt-4.1").contextWindow).toBe(
      contextWindowFor("gpt-4.1"),
    );
  });
});
