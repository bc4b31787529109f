import { describe, expect, it } from "vitest";
import { isLastAttempt, RETRY_BACKOFF_MS, retryWait } from "./scheduler";

describe("the background compaction's retries", () => {
  it("wait longer after each failure in a row, and no longer than the last wait", () => {
    expect(retryWait(1)).toBe(RETRY_BACKOFF_MS[0]);
    expect(retryWait(2)).toBe(RETRY_BACKOFF_MS[1]);
    expect(retryWait(2)).toBeGreaterThan(retryWait(1));
    expect(retryWait(9)).toBe(RETRY_BACKOFF_MS.at(-1));
  });

  it("end with the attempt after the last wait, which falls back to the deterministic tier", () => {
    expect(isLastAttempt(0)).toBe(false);
    expect(isLastAttempt(RETRY_BACKOFF_MS.length - 1)).toBe(false);
    expect(isLastAttempt(RETRY_BACKOFF_MS.length)).toBe(true);
  });
});
