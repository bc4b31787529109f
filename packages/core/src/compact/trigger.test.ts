import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../errors/condense-error.js";
import { shouldCompact } from "./trigger.js";

describe("shouldCompact", () => {
  it("fires over threshold × window", () => {
    expect(shouldCompact({ model: "gpt-4o", tokens: 96_000 }).compact).toBe(false);
    const over = shouldCompact({ model: "gpt-4o", tokens: 96_001 });
    expect(over.compact).toBe(true);
    expect(over.reason).toBe("over_threshold");
    expect(over.triggerTokens).toBe(96_000);
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
});

function catchOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
