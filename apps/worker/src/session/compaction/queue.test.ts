import { describe, expect, it } from "vitest";
import { CompactionQueue } from "./queue";

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe("CompactionQueue", () => {
  it("runs tasks one at a time, in order", async () => {
    const queue = new CompactionQueue();
    const events: string[] = [];
    const gate = deferred();
    const first = queue.run(async () => {
      events.push("first:start");
      await gate.promise;
      events.push("first:end");
      return 1;
    });
    const second = queue.run(async () => {
      events.push("second:start");
      return 2;
    });
    expect(queue.size).toBe(2);
    await Promise.resolve();
    await Promise.resolve();
    expect(events).toEqual(["first:start"]);
    gate.resolve();
    expect(await first).toBe(1);
    expect(await second).toBe(2);
    expect(events).toEqual(["first:start", "first:end", "second:start"]);
    expect(queue.size).toBe(0);
  });

  it("keeps going after a task fails", async () => {
    const queue = new CompactionQueue();
    const failed = queue.run(async () => {
      throw new Error("boom");
    });
    const next = queue.run(async () => "ok");
    await expect(failed).rejects.toThrow("boom");
    expect(await next).toBe("ok");
    expect(queue.size).toBe(0);
  });
});
