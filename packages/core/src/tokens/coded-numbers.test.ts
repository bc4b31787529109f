import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeNumbers, decodeRunningSums, NumberWriter } from "./coded-numbers.js";

function coded(values: readonly number[], runningSums = false) {
  const writer = new NumberWriter(runningSums);
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

describe("running sums", () => {
  // Successive values differ by any signed 24-bit number; 200 of them stay within 32 bits.
  const differences = fc.array(fc.integer({ min: -(2 ** 23), max: 2 ** 23 - 1 }), {
    maxLength: 200,
  });
  const sums = (steps: readonly number[]): number[] => {
    let value = 0;
    return steps.map((step) => (value += step));
  };

  it("decode to the values written, with their greatest as unsigned integers (property)", () => {
    fc.assert(
      fc.property(differences, (steps) => {
        const values = sums(steps);
        const decoded = decodeRunningSums(coded(values, true));
        expect([...decoded.values]).toEqual(values);
        expect(decoded.unsignedMax).toBe(Math.max(0, ...values.map((value) => value >>> 0)));
      }),
    );
  });

  it("code a value by its difference from the previous one, a fall in 24 bits", () => {
    // 5, 7, 7, 2, -3: differences 5, 2, 0, -5, -5 (-5 coded 2^24 - 5, as long as any number).
    const stream = coded([5, 7, 7, 2, -3], true);
    expect(decodeNumbers(stream)).toEqual(Int32Array.of(5, 2, 0, 2 ** 24 - 5, 2 ** 24 - 5));
    expect(decodeRunningSums(stream)).toEqual({
      values: Int32Array.of(5, 7, 7, 2, -3),
      unsignedMax: 2 ** 32 - 3,
    });
    expect(decodeRunningSums(coded([5, 7], true)).unsignedMax).toBe(7);
    expect(decodeRunningSums(coded([], true)).unsignedMax).toBe(0);
  });

  it("refuse a difference that signed 24 bits cannot hold", () => {
    for (const values of [[2 ** 23], [0, -(2 ** 23) - 1], [1.5]]) {
      const writer = new NumberWriter(true);
      expect(() => {
        for (const value of values) writer.write(value);
      }).toThrow(RangeError);
    }
    const writer = new NumberWriter(true);
    for (const value of [2 ** 23 - 1, -1, 2 ** 23 - 2]) writer.write(value);
    expect([...decodeRunningSums(writer.finish()).values]).toEqual([2 ** 23 - 1, -1, 2 ** 23 - 2]);
  });
});
