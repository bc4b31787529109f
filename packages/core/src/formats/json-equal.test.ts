import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonEqual } from "./json-equal.js";

describe("jsonEqual", () => {
  it("ignores key order and undefined-valued keys", () => {
    expect(jsonEqual({ a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 })).toBe(true);
    expect(jsonEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
  });

  it("tells apart values, array lengths, arrays from objects and null", () => {
    expect(jsonEqual({ a: 1 }, { a: 2 })).toBe(false);
    expect(jsonEqual([1, 2], [1, 2, 3])).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual("1", 1)).toBe(false);
    expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false);
  });

  it("agrees with JSON text equality on JSON values (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const same = JSON.stringify(a) === JSON.stringify(b);
        if (same) expect(jsonEqual(a, b)).toBe(true);
        expect(jsonEqual(a, structuredClone(a))).toBe(true);
        if (!jsonEqual(a, b)) expect(same).toBe(false);
      }),
    );
  });
});
