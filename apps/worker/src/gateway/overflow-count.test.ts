import { describe, expect, it } from "vitest";
import { markPassedThrough, upstreamCount } from "./overflow-count";

const openai = (tokens: number, limit: number) => ({
  status: 400,
  text: JSON.stringify({
    error: {
      message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      type: "invalid_request_error",
      code: "context_length_exceeded",
    },
  }),
});

describe("upstreamCount", () => {
  it("scales the stated window by the upstream's count against the gateway's", () => {
    expect(upstreamCount(openai(20_000, 16_385), 7_000)).toEqual({
      limit: 16_385,
      counted: 20_000,
      ours: 7_000,
      window: 5_734,
    });
  });

  it("keeps the stated window when the upstream counted no more than the gateway", () => {
    expect(upstreamCount(openai(20_000, 16_385), 21_000)?.window).toBe(16_385);
  });

  it("reads Anthropic's input + max_tokens wording by its input's count", () => {
    const error = {
      status: 400,
      text: JSON.stringify({
        type: "error",
        error: {
          type: "invalid_request_error",
          message:
            "input length and `max_tokens` exceed context limit: 150000 + 64000 > 200000, decrease input length or `max_tokens` and try again",
        },
      }),
    };
    expect(upstreamCount(error, 100_000)).toMatchObject({ counted: 150_000, window: 133_333 });
  });

  it("is undefined for an error that states no figures", () => {
    const error = {
      status: 400,
      text: '{"error":{"message":"Your input exceeds the context window of this model."}}',
    };
    expect(upstreamCount(error, 1_000)).toBeUndefined();
  });
});

describe("markPassedThrough", () => {
  it("says, in one line of ASCII, what the upstream counted and why nothing smaller goes", () => {
    const headers: Record<string, string> = {};
    markPassedThrough(headers, upstreamCount(openai(20_000, 16_385), 126), 126, 126);
    expect(headers["X-Condense-Overflow"]).toBe("passed-through");
    const reason = headers["X-Condense-Overflow-Reason"] ?? "";
    expect(reason).toMatch(
      /^the upstream counted 20000 tokens where Condense counted 126, so its window of 16385 holds 103 of Condense's; nothing smaller can be sent/,
    );
    expect(reason).toMatch(/^[\x20-\x7e]+$/);
  });
});
