import { describe, expect, it } from "vitest";
import { type CachePricing, PromptCacheBiller } from "./prompt-cache.js";

const anthropic: CachePricing = {
  name: "Anthropic",
  model: "claude",
  caching: "breakpoints",
  cacheWrite: 1.25,
  cacheRead: 0.1,
  minTokens: 1_024,
  blockTokens: 1,
  inputPerMillion: 3,
};
const openai: CachePricing = {
  name: "GPT-5",
  model: "gpt-5",
  caching: "prefix",
  cacheWrite: 1,
  cacheRead: 0.1,
  minTokens: 1_024,
  blockTokens: 128,
  inputPerMillion: 1.25,
};

/** Messages named by letters, each of the given size. */
function request(spec: string, sizes: Record<string, number>, breakpoints: number[] = []) {
  const keys = spec.split("");
  return { keys, tokens: keys.map((key) => sizes[key] ?? 0), breakpoints };
}

describe("the breakpoints rule (Anthropic)", () => {
  const sizes = { s: 2_000, a: 1_000, b: 500, c: 700, S: 300, d: 400 };

  it("writes up to the last breakpoint, then reads what an earlier breakpoint marked", () => {
    const biller = new PromptCacheBiller(anthropic);
    const first = biller.bill(request("sab", sizes));
    expect(first).toMatchObject({ read: 0, written: 3_500, uncached: 0, bust: false });
    expect(first.cost).toBeCloseTo(1.25 * 3_500);
    const second = biller.bill(request("sabc", sizes));
    expect(second).toMatchObject({ read: 3_500, written: 700, uncached: 0, bust: false });
    expect(second.cost).toBeCloseTo(0.1 * 3_500 + 1.25 * 700);
  });

  it("reads only up to an earlier breakpoint: a rewritten start busts all after it", () => {
    const biller = new PromptCacheBiller(anthropic);
    biller.bill(request("sab", sizes, [1]));
    biller.bill(request("sabc", sizes, [1]));
    // A compaction: the system prompt stays, the rest is a summary and the newest message.
    const compacted = biller.bill(request("sSd", sizes, [1]));
    expect(compacted).toMatchObject({ read: 2_000, written: 700, bust: true });
    expect(biller.totals).toMatchObject({ busts: 1, requests: 3 });
  });

  it("caches nothing under the minimum: the prompt costs the input price", () => {
    const biller = new PromptCacheBiller(anthropic);
    biller.bill(request("bd", sizes));
    const again = biller.bill(request("bd", sizes));
    expect(again).toMatchObject({ read: 0, written: 0, uncached: 900, cost: 900 });
  });

  it("counts the client's breakpoint on the newest message even when the request names none", () => {
    const biller = new PromptCacheBiller(anthropic);
    biller.bill({ keys: ["s", "a"], tokens: [2_000, 1_000], breakpoints: [] });
    expect(biller.bill(request("sab", sizes)).read).toBe(3_000);
  });
});

describe("the prefix rule (OpenAI)", () => {
  const sizes = { s: 2_000, a: 1_000, b: 500, x: 300 };

  it("reads the longest shared prefix in whole 128-token blocks, with no write premium", () => {
    const biller = new PromptCacheBiller(openai);
    expect(biller.bill(request("sa", sizes))).toMatchObject({ read: 0, uncached: 3_000 });
    const second = biller.bill(request("sab", sizes));
    expect(second.read).toBe(Math.floor(3_000 / 128) * 128);
    expect(second.cost).toBeCloseTo(0.1 * second.read + (3_500 - second.read));
  });

  it("finds a prefix any earlier request had, not only the last one", () => {
    const biller = new PromptCacheBiller(openai);
    biller.bill(request("sab", sizes));
    biller.bill(request("x", sizes));
    expect(biller.bill(request("sax", sizes)).read).toBe(Math.floor(3_000 / 128) * 128);
  });

  it("reads nothing under 1,024 shared tokens", () => {
    const biller = new PromptCacheBiller(openai);
    biller.bill(request("ab", sizes));
    expect(biller.bill(request("ax", sizes)).read).toBe(0);
  });
});
