import { describe, expect, it } from "vitest";
import { parseRetryAfter } from "./retry-after.js";

describe("parseRetryAfter", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");

  it("reads seconds, fractions and HTTP dates as milliseconds", () => {
    expect(parseRetryAfter(new Headers({ "retry-after": "12" }), now)).toBe(12_000);
    expect(parseRetryAfter(new Headers({ "retry-after": " 1.5 " }), now)).toBe(1500);
    expect(
      parseRetryAfter(new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:30 GMT" }), now),
    ).toBe(30_000);
  });

  it("asks for no wait at all for a date already past", () => {
    expect(
      parseRetryAfter(new Headers({ "retry-after": "Wed, 31 Dec 2025 23:59:00 GMT" }), now),
    ).toBe(0);
  });

  it("prefers retry-after-ms, and falls back to retry-after when it cannot read it", () => {
    const both = new Headers({ "retry-after-ms": "250", "retry-after": "9" });
    expect(parseRetryAfter(both, now)).toBe(250);
    const unreadable = new Headers({ "retry-after-ms": "-1", "retry-after": "9" });
    expect(parseRetryAfter(unreadable, now)).toBe(9000);
  });

  it("ignores what it cannot read", () => {
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfter(new Headers({ "retry-after": " " }))).toBeUndefined();
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "-1" }))).toBeUndefined();
    expect(parseRetryAfter(new Headers())).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
