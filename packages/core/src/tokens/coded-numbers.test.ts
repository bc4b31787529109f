import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeNumbers, NumberWriter } from "./coded-numbers.js";

function coded(values: readonly number[]) {
  const writer = new NumberWriter();
  for (const value of values) writer.write(value);
  return writer.finish();
}

describe("coded numbers", () => {
  it("decode to the numbers written, in order (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2 ** 24 - 1 })), (values) => {
        expect([...decodeNumbers(coded(values))]).toEqual(values);
      }),
    );
  });

  it("code small numbers as one symbol and no bits", () => {
    expect(coded([0, 1, 2, 3, 7])).toEqual({ symbols: expect.any(String), bits: "" });
    expect(coded([0, 1, 2, 3, 7]).symbols).toHaveLength(5);
  });

  it("refuse numbers they cannot code, and streams that end early or hold no symbol", () => {
    const writer = new NumberWriter();
    for (const value of [-1, 1.5, 2 ** 24]) expect(() => writer.write(value)).toThrow(RangeError);
    const { symbols } = coded([1_000_000]);
    expect(() => decodeNumbers({ symbols, bits: "" })).toThrow(/bits end early/);
    expect(() => decodeNumbers({ symbols: '"', bits: "" })).toThrow(/a bad symbol/);
  });
});
