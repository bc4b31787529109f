import { describe, expect, it } from "vitest";
import { aiSdkUsage, anthropicUsage, chatUsage, responsesUsage } from "./usage-report.js";

describe("usage reports", () => {
  it("reads each provider's cached tokens as parts of every input token", () => {
    expect(
      chatUsage({
        prompt_tokens: 1_000,
        completion_tokens: 5,
        total_tokens: 1_005,
        prompt_tokens_details: { cached_tokens: 896 },
      }),
    ).toEqual({ inputTokens: 1_000, cacheReadTokens: 896 });
    expect(
      responsesUsage({
        input_tokens: 1_000,
        input_tokens_details: { cached_tokens: 768, cache_write_tokens: 200 },
        output_tokens: 5,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 1_005,
      }),
    ).toEqual({ inputTokens: 1_000, cacheReadTokens: 768, cacheWriteTokens: 200 });
    // Anthropic's input_tokens is the uncached part only.
    expect(
      anthropicUsage({
        input_tokens: 10,
        cache_read_input_tokens: 900,
        cache_creation_input_tokens: 90,
      }),
    ).toEqual({ inputTokens: 1_000, cacheReadTokens: 900, cacheWriteTokens: 90 });
    expect(
      aiSdkUsage({
        inputTokens: { total: 1_000, noCache: 50, cacheRead: 900, cacheWrite: 50 },
        outputTokens: { total: 1, text: 1, reasoning: undefined },
      }),
    ).toEqual({ inputTokens: 1_000, cacheReadTokens: 900, cacheWriteTokens: 50 });
  });

  it("leaves out what the provider did not report, and reports nothing without a total", () => {
    expect(chatUsage({ prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 })).toEqual({
      inputTokens: 10,
    });
    expect(chatUsage(null)).toBeUndefined();
    expect(anthropicUsage({ input_tokens: null, cache_read_input_tokens: 5 })).toBeUndefined();
    expect(
      aiSdkUsage({
        inputTokens: { total: undefined, noCache: undefined, cacheRead: 5, cacheWrite: undefined },
        outputTokens: { total: 1, text: 1, reasoning: undefined },
      }),
    ).toBeUndefined();
  });

  it("cuts cached parts to the total, which the service would refuse (and the append retry forever)", () => {
    expect(
      aiSdkUsage({
        inputTokens: { total: 100, noCache: 0, cacheRead: 80, cacheWrite: 60 },
        outputTokens: { total: 1, text: 1, reasoning: undefined },
      }),
    ).toEqual({ inputTokens: 100, cacheReadTokens: 80, cacheWriteTokens: 20 });
  });
});
