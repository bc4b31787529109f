import { APIError } from "openai";
import { describe, expect, it } from "vitest";
import { describeProviderError } from "./provider-error.js";

describe("describeProviderError", () => {
  it("reports an openai APIError with its status, message and parsed body", () => {
    const body = {
      error: {
        message:
          "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
        type: "invalid_request_error",
        code: "context_length_exceeded",
      },
    };
    const error = APIError.generate(400, body, undefined, new Headers());
    const report = describeProviderError(error);
    expect(report.status).toBe(400);
    expect(report.message).toContain("maximum context length is 8192 tokens");
    expect(report.body).toEqual(body.error);
  });

  it("reads status and statusCode of plain objects and keeps their body", () => {
    expect(describeProviderError({ statusCode: 413, message: "too big", body: { a: 1 } })).toEqual({
      status: 413,
      message: "too big",
      body: { a: 1 },
    });
    expect(describeProviderError({ response: { status: 400 }, message: "m" })).toEqual({
      status: 400,
      message: "m",
    });
  });

  it("uses a string body as the message when there is no message", () => {
    expect(
      describeProviderError({ status: 400, body: "prompt is too long: 5 tokens > 4 maximum" }),
    ).toEqual({
      status: 400,
      message: "prompt is too long: 5 tokens > 4 maximum",
      body: "prompt is too long: 5 tokens > 4 maximum",
    });
  });

  it("reports strings and other values as messages, cut to the 100 000 characters the service takes", () => {
    expect(describeProviderError("prompt is too long")).toEqual({ message: "prompt is too long" });
    expect(describeProviderError(42)).toEqual({ message: "42" });
    expect(describeProviderError("x".repeat(150_000)).message).toHaveLength(100_000);
  });

  it("leaves out a body too large to send", () => {
    const report = describeProviderError({
      status: 400,
      message: "m",
      body: { blob: "y".repeat(300_000) },
    });
    expect(report).toEqual({ status: 400, message: "m" });
  });
});
