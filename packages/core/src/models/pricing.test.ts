import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../errors/condense-error.js";
import { DEFAULT_PRICING, modelPricing } from "./pricing.js";

describe("modelPricing", () => {
  it("prices Claude with a write premium and breakpoints", () => {
    const pricing = modelPricing("claude-sonnet-4-5-20250929");
    expect(pricing).toMatchObject({
      source: "catalog",
      provider: "anthropic",
      inputPerMillion: 3,
      caching: { kind: "breakpoints", minTokens: 1_024 },
    });
    expect(pricing.cacheWrite).toBeCloseTo(1.25);
    expect(pricing.cacheRead).toBeCloseTo(0.1);
  });

  it("prices GPT-5 and gpt-4o with automatic prefix caching and no write premium", () => {
    const gpt5 = modelPricing("openai/gpt-5");
    expect(gpt5).toMatchObject({ provider: "openai", inputPerMillion: 1.25, cacheWrite: 1 });
    expect(gpt5.cacheRead).toBeCloseTo(0.1);
    expect(gpt5.caching).toEqual({ kind: "prefix", minTokens: 1_024, blockTokens: 128 });
    const gpt4o = modelPricing("gpt-4o-2024-08-06");
    expect(gpt4o.inputPerMillion).toBe(2.5);
    expect(gpt4o.cacheRead).toBeCloseTo(0.5);
  });

  it("gives OpenAI's models that price cache writes (GPT-5.6 and later) explicit breakpoints, four written a request", () => {
    for (const model of ["gpt-5.6", "gpt-5.6-terra-2026-07-01", "gpt-6-luna"]) {
      const pricing = modelPricing(model);
      expect(pricing.caching).toEqual({
        kind: "prefix",
        minTokens: 1_024,
        blockTokens: 128,
        explicitBreakpoints: 4,
      });
      expect(pricing.cacheWrite).toBeCloseTo(1.25);
    }
    for (const model of ["gpt-5.5", "gpt-5", "gpt-4o", "deepseek-chat", "my-finetune"]) {
      expect(modelPricing(model).caching).not.toHaveProperty("explicitBreakpoints");
    }
  });

  it("says a model with no cache price has no caching", () => {
    const pricing = modelPricing("gpt-4-turbo");
    expect(pricing.caching).toEqual({ kind: "none" });
    expect(pricing.cacheRead).toBe(1);
  });

  it("gives models the catalog does not list the defaults", () => {
    expect(modelPricing("my-finetune")).toEqual(DEFAULT_PRICING);
    expect(modelPricing("")).toEqual(DEFAULT_PRICING);
  });

  it("puts the caller's override on top, field by field", () => {
    const pricing = modelPricing("gpt-4o", { cacheRead: 0.25, cacheWrite: undefined });
    expect(pricing).toMatchObject({ source: "override", inputPerMillion: 2.5, cacheRead: 0.25 });
    expect(pricing.cacheWrite).toBe(1);
  });

  it("refuses an override that is not a positive multiple, naming it", () => {
    expect(() => modelPricing("gpt-4o", { cacheRead: 0 })).toThrow(InvalidOptionsError);
    expect(() => modelPricing("gpt-4o", { cacheWrite: Number.NaN })).toThrow(/pricing.cacheWrite/);
  });
});
