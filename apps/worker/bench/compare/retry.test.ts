import { afterEach, describe, expect, it, vi } from "vitest";
import { retriedOnce } from "./retry.ts";

describe("retriedOnce", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("runs a task that succeeds once, and returns when it started", async () => {
    const task = vi.fn(async () => "ok");
    const before = performance.now();
    const started = await retriedOnce("a request", task, 0);
    expect(task).toHaveBeenCalledTimes(1);
    expect(started).toBeGreaterThanOrEqual(before);
  });

  it("runs a task that fails once a second time, says so, and returns when the retry started", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    let calls = 0;
    let retryStarted = 0;
    const task = vi.fn(async () => {
      calls++;
      if (calls === 1) throw new Error("fetch failed: socket hang up");
      retryStarted = performance.now();
    });
    const started = await retriedOnce("append (change)", task, 0);
    expect(task).toHaveBeenCalledTimes(2);
    expect(started).toBeLessThanOrEqual(retryStarted);
    expect(log).toHaveBeenCalledWith(
      "append (change) failed (Error: fetch failed: socket hang up); retried once",
    );
  });

  it("lets a second failure through: it is not a dropped request", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const task = vi.fn(async () => {
      throw new Error("500 internal error");
    });
    await expect(retriedOnce("a request", task, 0)).rejects.toThrow("500 internal error");
    expect(task).toHaveBeenCalledTimes(2);
  });
});
