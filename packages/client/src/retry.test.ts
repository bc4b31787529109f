import { describe, expect, it } from "vitest";
import {
  type AttemptResult,
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  retrying,
} from "./retry.js";

const policy: RetryPolicy = {
  maxRetries: 3,
  initialDelayMs: 1,
  maxDelayMs: 4,
  maxRetryAfterMs: 50,
};

describe("backoffDelay", () => {
  it("doubles from the initial delay up to the cap, scaled into [half, whole) of the step", () => {
    const p: RetryPolicy = { ...DEFAULT_RETRY_POLICY, initialDelayMs: 100, maxDelayMs: 1_000 };
    const steps = [100, 200, 400, 800, 1_000, 1_000];
    steps.forEach((step, retry) => {
      for (const random of [0, 0.25, 0.5, 0.999]) {
        const delay = backoffDelay(retry, p, () => random);
        expect(delay).toBeGreaterThanOrEqual(step / 2);
        expect(delay).toBeLessThan(step);
        expect(delay).toBeCloseTo(step * (0.5 + random / 2));
      }
    });
  });
});

describe("retrying", () => {
  const failure = (retryable: boolean, retryAfterMs?: number): AttemptResult<string> => ({
    ok: false,
    error: new Error("nope"),
    retryable,
    retryAfterMs,
  });

  it("makes 1 + maxRetries attempts, then throws the last error", async () => {
    const seen: number[] = [];
    const errors = [new Error("a"), new Error("b"), new Error("c"), new Error("d")];
    await expect(
      retrying<string>(async (index) => {
        seen.push(index);
        return { ok: false, error: errors[index], retryable: true };
      }, policy),
    ).rejects.toBe(errors[3]);
    expect(seen).toEqual([0, 1, 2, 3]);
  });

  it("returns the first success", async () => {
    let calls = 0;
    const value = await retrying<string>(async () => {
      calls++;
      return calls < 3 ? failure(true) : { ok: true, value: "done" };
    }, policy);
    expect(value).toBe("done");
    expect(calls).toBe(3);
  });

  it("does not retry what may not be retried", async () => {
    let calls = 0;
    await expect(
      retrying<string>(async () => {
        calls++;
        return failure(false);
      }, policy),
    ).rejects.toThrow("nope");
    expect(calls).toBe(1);
  });

  it("waits out a short Retry-After but gives up at once on one beyond maxRetryAfterMs", async () => {
    let calls = 0;
    const value = await retrying<string>(async () => {
      calls++;
      return calls === 1 ? failure(true, 5) : { ok: true, value: "after" };
    }, policy);
    expect(value).toBe("after");
    calls = 0;
    await expect(
      retrying<string>(async () => {
        calls++;
        return failure(true, 51);
      }, policy),
    ).rejects.toThrow("nope");
    expect(calls).toBe(1);
  });

  it("stops waiting and rejects with the signal's reason when aborted during the backoff", async () => {
    const controller = new AbortController();
    const reason = new Error("caller gave up");
    let calls = 0;
    const run = retrying<string>(
      async () => {
        calls++;
        setTimeout(() => controller.abort(reason), 5);
        return failure(true);
      },
      { ...policy, initialDelayMs: 60_000, maxDelayMs: 60_000 },
      { signal: controller.signal },
    );
    await expect(run).rejects.toBe(reason);
    expect(calls).toBe(1);
  });
});
