import { describe, expect, it } from "vitest";
import { calibrate, isExactlyCounted, MAX_RATIO, MIN_RATIO } from "./calibration";

describe("calibrate", () => {
  it("takes the first sample as the ratio", () => {
    expect(calibrate({ ratio: 1, samples: 0 }, 1000, 1300)).toEqual({ ratio: 1.3, samples: 1 });
  });

  it("moves towards later samples without jumping to them", () => {
    const after = calibrate({ ratio: 1.3, samples: 5 }, 1000, 1000);
    expect(after.ratio).toBeLessThan(1.3);
    expect(after.ratio).toBeGreaterThan(1.0);
    expect(after.samples).toBe(6);
  });

  it("clamps absurd reports", () => {
    expect(calibrate({ ratio: 1, samples: 0 }, 1000, 100_000).ratio).toBe(MAX_RATIO);
    expect(calibrate({ ratio: 1, samples: 0 }, 1000, 1).ratio).toBe(MIN_RATIO);
  });

  it("ignores tiny prompts and zero reports", () => {
    const current = { ratio: 1.1, samples: 3 };
    expect(calibrate(current, 50, 80)).toBe(current);
    expect(calibrate(current, 5000, 0)).toBe(current);
  });
});

describe("isExactlyCounted", () => {
  it("knows OpenAI models from others", () => {
    expect(isExactlyCounted("gpt-4o")).toBe(true);
    expect(isExactlyCounted("o3-mini")).toBe(true);
    expect(isExactlyCounted("openai/gpt-5")).toBe(true);
    expect(isExactlyCounted("claude-sonnet-4-5")).toBe(false);
    expect(isExactlyCounted("gemini-2.5-pro")).toBe(false);
  });
});
