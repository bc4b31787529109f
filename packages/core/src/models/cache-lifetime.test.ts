import { describe, expect, it } from "vitest";
import { cacheLifetimeMs, isCacheCold } from "./cache-lifetime.js";
import { modelPricing } from "./pricing.js";

describe("cacheLifetimeMs", () => {
  it("is Anthropic's 5 minutes, OpenAI's automatic caching's 10, and none without caching", () => {
    expect(cacheLifetimeMs(modelPricing("claude-sonnet-4-5").caching.kind)).toBe(5 * 60_000);
    expect(cacheLifetimeMs(modelPricing("gpt-5").caching.kind)).toBe(10 * 60_000);
    expect(cacheLifetimeMs("none")).toBe(0);
  });
});

describe("isCacheCold", () => {
  const lifetime = 5 * 60_000;
  it("is cold once the lifetime has passed since the last read, warm before", () => {
    expect(isCacheCold(1_000, 1_000 + lifetime - 1, lifetime)).toBe(false);
    expect(isCacheCold(1_000, 1_000 + lifetime, lifetime)).toBe(true);
  });
  it("is never cold without a last read (nothing says when the cache was used)", () => {
    expect(isCacheCold(undefined, Number.MAX_SAFE_INTEGER, lifetime)).toBe(false);
  });
});
