import { describe, expect, it } from "vitest";
import {
  BREAKER_FAILURES,
  llmSkippedUntil,
  MAX_OPEN_MS,
  summarizerBreakerOf,
} from "./summarizer-breaker";

type Row = {
  at: number;
  summarizer: string | null;
  failureKind: string | null;
  failureMessage: string | null;
};

/** Storage whose compaction history is `rows`, newest first. */
function history(rows: Row[]): SqlStorage {
  return { exec: () => ({ toArray: () => rows }) } as unknown as SqlStorage;
}

const failed = (at: number): Row => ({
  at,
  summarizer: "extractive",
  failureKind: "server_error",
  failureMessage: "500 from the summarizer",
});
const summarized = (at: number): Row => ({
  at,
  summarizer: "llm",
  failureKind: null,
  failureMessage: null,
});
const stripped = (at: number): Row => ({
  at,
  summarizer: null,
  failureKind: null,
  failureMessage: null,
});

const COOLDOWN_SECONDS = 600;

describe("summarizerBreakerOf", () => {
  it("stays closed below three failures in a row", () => {
    const breaker = summarizerBreakerOf(
      history([failed(3), failed(2), summarized(1)]),
      10,
      COOLDOWN_SECONDS,
    );
    expect(breaker).toMatchObject({ state: "closed", consecutiveFailures: 2, openUntil: null });
  });

  it("opens at three for twice the cooldown, passing over compactions that did not call the LLM", () => {
    const at = 1_000_000;
    const rows = [failed(at), stripped(at - 1), failed(at - 2), failed(at - 3), summarized(at - 4)];
    const breaker = summarizerBreakerOf(history(rows), at + 1, COOLDOWN_SECONDS);
    expect(BREAKER_FAILURES).toBe(3);
    expect(breaker.state).toBe("open");
    expect(breaker.consecutiveFailures).toBe(3);
    expect(breaker.openUntil).toBe(at + 2 * COOLDOWN_SECONDS * 1000);
    expect(breaker.lastFailure).toEqual({
      kind: "server_error",
      message: "500 from the summarizer",
      at,
    });
    // The LLM is skipped until the breaker's end, past the cooldown's.
    expect(llmSkippedUntil(at + COOLDOWN_SECONDS * 1000, breaker)).toBe(breaker.openUntil);
  });

  it("doubles with each further failure, up to six hours, then lets one try through", () => {
    const at = 5_000_000;
    const rows = [failed(at), failed(at - 1), failed(at - 2), failed(at - 3)];
    expect(summarizerBreakerOf(history(rows), at, COOLDOWN_SECONDS).openUntil).toBe(
      at + 4 * 600_000,
    );
    const many = Array.from({ length: 20 }, (_, i) => failed(at - i));
    const capped = summarizerBreakerOf(history(many), at, COOLDOWN_SECONDS);
    expect(capped.openUntil).toBe(at + MAX_OPEN_MS);
    const later = summarizerBreakerOf(history(many), at + MAX_OPEN_MS, COOLDOWN_SECONDS);
    expect(later.state).toBe("half-open");
    expect(llmSkippedUntil(null, later)).toBeUndefined();
  });
});
