import { describe, expect, it } from "vitest";
import { TextKeyedCache } from "./text-keyed-cache";

describe("TextKeyedCache", () => {
  it("evicts the least recently used keys beyond its bound", () => {
    const cache = new TextKeyedCache<number>(80);
    cache.set("a".repeat(10), 1);
    cache.set("b".repeat(10), 2);
    cache.set("c".repeat(10), 3);
    // Reading `a` makes `b` the least recently used.
    expect(cache.get("a".repeat(10))).toBe(1);
    for (const letter of "defghi") cache.set(letter.repeat(10), 0);
    expect(cache.get("b".repeat(10))).toBeUndefined();
    expect(cache.get("a".repeat(10))).toBe(1);
    expect(cache.get("i".repeat(10))).toBe(0);
    expect(cache.get("c".repeat(10))).toBe(3);
  });

  it("keeps no key longer than an eighth of its bound, and the first value of a key", () => {
    const cache = new TextKeyedCache<number>(80);
    cache.set("x".repeat(11), 1);
    expect(cache.get("x".repeat(11))).toBeUndefined();
    cache.set("y", 1);
    cache.set("y", 2);
    expect(cache.get("y")).toBe(1);
  });
});
