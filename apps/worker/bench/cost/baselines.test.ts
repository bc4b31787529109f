import { describe, expect, it } from "vitest";
import {
  type BenchMessage,
  CompactAt95,
  ObservationMasking,
  TruncateOldest,
  totalTokens,
} from "./baselines";

let next = 0;
const message = (role: string, tokens: number): BenchMessage => ({
  key: `m${next++}`,
  tokens,
  role,
});

/** A system prompt, then `turns` steps of an assistant call and its 1,000-token result. */
function session(turns: number): BenchMessage[] {
  const out = [message("system", 500), message("user", 100)];
  for (let i = 0; i < turns; i++) out.push(message("assistant", 100), message("tool", 1_000));
  return out;
}

describe("truncate-oldest", () => {
  it("leaves a context under 0.75 × W alone", () => {
    const context = session(5);
    expect(new TruncateOldest(10_000).step(context)).toEqual({ context, compacted: false });
  });

  it("drops the oldest messages until under 0.5 × W, keeping the system prompt and no orphaned result", () => {
    const context = session(8);
    const { context: kept, compacted } = new TruncateOldest(10_000).step(context);
    expect(compacted).toBe(true);
    expect(totalTokens(kept)).toBeLessThan(5_000);
    expect(kept[0]?.role).toBe("system");
    expect(kept[1]?.role).not.toBe("tool");
    expect(kept.at(-1)).toBe(context.at(-1));
  });
});

describe("compact-at-95", () => {
  it("keeps the system prompt, one 2,000-token summary and the newest 0.2 × W", async () => {
    const policy = new CompactAt95(10_000);
    const context = session(8);
    expect((await policy.step(context)).compacted).toBe(false);
    context.push(message("assistant", 100), message("tool", 1_000));
    const { context: kept, compacted } = await policy.step(context);
    expect(compacted).toBe(true);
    expect(kept[0]?.role).toBe("system");
    expect(kept[1]).toMatchObject({ tokens: 2_000, role: "user" });
    expect(kept[2]?.role).toBe("assistant");
    expect(totalTokens(kept.slice(2))).toBeLessThanOrEqual(2_000 + 1_100);
    expect(policy.breakpoints(kept)).toEqual([1, 2]);
  });
});

describe("compact-at-95 with a summarizer", () => {
  it("summarizes what it drops, the previous summary among it, and marks the summary's end", async () => {
    const seen: string[][] = [];
    let written = 0;
    const policy = new CompactAt95(10_000, async (dropped) => {
      seen.push(dropped.map((m) => m.key));
      written++;
      return { key: `summary ${written}`, tokens: 500, role: "user" };
    });
    const context = session(9);
    const first = await policy.step(context);
    expect(first.compacted).toBe(true);
    expect(first.context[1]).toMatchObject({ key: "summary 1", tokens: 500 });
    expect(seen[0]).toEqual(context.slice(1, context.length - 2).map((m) => m.key));
    const grown = [...first.context];
    for (let i = 0; i < 8; i++) grown.push(message("assistant", 100), message("tool", 1_000));
    const second = await policy.step(grown);
    expect(second.compacted).toBe(true);
    expect(seen[1]?.[0]).toBe("summary 1");
    expect(policy.breakpoints(second.context)).toEqual([1, 2]);
  });
});

describe("observation masking", () => {
  const mask = (m: BenchMessage): BenchMessage => ({
    key: `masked ${m.key}`,
    tokens: 10,
    role: "tool",
  });

  it("masks every tool output but the newest 10, and masks each once", () => {
    const policy = new ObservationMasking(1_000_000, mask);
    const context = session(12);
    const { context: kept, compacted } = policy.step(context);
    expect(compacted).toBe(true);
    const outputs = kept.filter((m) => m.role === "tool");
    expect(outputs.slice(0, 2).every((m) => m.key.startsWith("masked "))).toBe(true);
    expect(outputs.slice(2).some((m) => m.key.startsWith("masked "))).toBe(false);
    expect(policy.step(kept)).toEqual({ context: kept, compacted: false });
  });

  it("drops the oldest messages when the masked context still exceeds the window", () => {
    const policy = new ObservationMasking(8_000, mask);
    const { context: kept } = policy.step(session(12));
    expect(totalTokens(kept)).toBeLessThanOrEqual(8_000);
    expect(kept[0]?.role).toBe("system");
    expect(kept[1]?.role).not.toBe("tool");
  });
});
