import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonTextNestsTooDeep, MAX_NESTING, valueNestsTooDeep } from "./limits.js";

describe("nesting limits", () => {
  const nested = (depth: number) =>
    `${"[".repeat(depth - 1)}{"k":"[{\\"}"}${"]".repeat(depth - 1)}`;

  it("measures JSON text depth, ignoring brackets inside strings", () => {
    expect(jsonTextNestsTooDeep(nested(MAX_NESTING))).toBe(false);
    expect(jsonTextNestsTooDeep(nested(MAX_NESTING + 1))).toBe(true);
    expect(jsonTextNestsTooDeep('"[[[[[["', 2)).toBe(false);
    expect(jsonTextNestsTooDeep("[[1],[2]]", 2)).toBe(false);
    expect(jsonTextNestsTooDeep("[[[1]]]", 2)).toBe(true);
  });

  it("agrees with the parsed value's depth (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 1, max: 6 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(jsonTextNestsTooDeep(text, limit)).toBe(valueNestsTooDeep(value, limit));
      }),
    );
  });

  it("measures values without recursion, flags cycles, and measures shared parts once", () => {
    expect(valueNestsTooDeep(JSON.parse(nested(MAX_NESTING)))).toBe(false);
    expect(valueNestsTooDeep(JSON.parse(nested(100_000)))).toBe(true);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(valueNestsTooDeep(cyclic)).toBe(true);
    // 2^60 paths if shared parts were walked again.
    let shared: unknown = { leaf: true };
    for (let i = 0; i < 60; i++) shared = [shared, shared];
    expect(valueNestsTooDeep(shared, 61)).toBe(false);
    expect(valueNestsTooDeep(shared, 60)).toBe(true);
    expect(valueNestsTooDeep("text")).toBe(false);
  });
});
