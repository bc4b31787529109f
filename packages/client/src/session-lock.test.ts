import { describe, expect, it } from "vitest";
import { SessionLocks } from "./session-lock.js";

describe("SessionLocks", () => {
  it("hands a session's turn to waiters in the order they asked, one at a time", async () => {
    const locks = new SessionLocks();
    const order: string[] = [];
    const held = await locks.acquire("s");
    const waiting = ["a", "b", "c"].map(async (name) => {
      const lock = await locks.acquire("s");
      order.push(`${name} in`);
      await new Promise((resolve) => setTimeout(resolve, 1));
      order.push(`${name} out`);
      lock.release();
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual([]);
    held.release();
    await Promise.all(waiting);
    expect(order).toEqual(["a in", "a out", "b in", "b out", "c in", "c out"]);
    expect(locks.size).toBe(0);
  });

  it("does not make one session wait for another", async () => {
    const locks = new SessionLocks();
    const first = await locks.acquire("one");
    const other = await locks.acquire("two");
    other.release();
    first.release();
  });

  it("lets a waiter give up on abort without holding up the ones after it; release is idempotent", async () => {
    const locks = new SessionLocks();
    const held = await locks.acquire("s");
    const controller = new AbortController();
    const gaveUp = locks.acquire("s", controller.signal);
    const after = locks.acquire("s");
    controller.abort(new Error("caller gave up"));
    await expect(gaveUp).rejects.toThrow("caller gave up");
    held.release();
    held.release();
    const lock = await after;
    lock.release();
    expect(locks.size).toBe(0);
  });
});
