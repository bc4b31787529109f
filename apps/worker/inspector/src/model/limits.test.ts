import { describe, expect, it } from "vitest";
import type { SessionSettings } from "../api/types.ts";
import { triggerTokens } from "./limits.ts";

const settings = (threshold: number | null) => ({ threshold }) as SessionSettings;

describe("triggerTokens", () => {
  it("is the threshold's share of the window, the default 0.75 when unset", () => {
    expect(
      triggerTokens({ contextWindow: 128_000, budget: 108_000, settings: settings(null) }),
    ).toBe(96_000);
    expect(
      triggerTokens({ contextWindow: 128_000, budget: 108_000, settings: settings(0.5) }),
    ).toBe(64_000);
  });

  it("never lies past the budget (window − reserve)", () => {
    expect(triggerTokens({ contextWindow: 32_000, budget: 16_000, settings: settings(null) })).toBe(
      16_000,
    );
  });
});
