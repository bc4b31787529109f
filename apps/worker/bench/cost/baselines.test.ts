import { describe, expect, it } from "vitest";
import { type BenchMessage, CompactAt95, TruncateOldest, totalTokens } from "./baselines";

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
  it("keeps the system prompt, one 2,000-token summary and the newest 0.2 × W", () => {
    const policy = new CompactAt95(10_000);
    const context = session(8);
    expect(policy.step(context).compacted).toBe(false);
    context.push(message("assistant", 100), message("tool", 1_000));
    const { context: kept, compacted } = policy.step(context);
    expect(compacted).toBe(true);
    expect(kept[0]?.role).toBe("system");
    expect(kept[1]).toMatchObject({ tokens: 2_000, role: "user" });
    expect(kept[2]?.role).toBe("assistant");
    expect(totalTokens(kept.slice(2))).toBeLessThanOrEqual(2_000 + 1_100);
    expect(policy.breakpoints(kept)).toEqual([1, 2]);
  });
});
