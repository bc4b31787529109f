import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "./condense-error.js";
import {
  nonNegativeInteger,
  optionalString,
  perMessageNumbers,
  positiveNumber,
} from "./option-checks.js";

/** The error `run` throws, which must be an `InvalidOptionsError`. */
function optionError(run: () => unknown): InvalidOptionsError {
  try {
    run();
  } catch (error) {
    if (InvalidOptionsError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected an InvalidOptionsError, but nothing was thrown");
}

describe("nonNegativeInteger", () => {
  it("returns the fallback for undefined and any whole number ≥ 0 as given", () => {
    expect(nonNegativeInteger("n", undefined, 7)).toBe(7);
    fc.assert(
      fc.property(fc.nat(), (value) => {
        expect(nonNegativeInteger("n", value, 7)).toBe(value);
      }),
    );
  });

  it("rejects negatives, fractions, non-finite numbers and non-numbers, naming the option", () => {
    for (const value of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "3", null]) {
      const error = optionError(() => nonNegativeInteger("maxRetries", value, 2));
      expect(error.option).toBe("maxRetries");
      expect(error.message).toContain("expected a whole number ≥ 0");
    }
  });
});

describe("positiveNumber", () => {
  it("returns the fallback for undefined and any finite number > 0 as given", () => {
    expect(positiveNumber("x", undefined, 0.5)).toBe(0.5);
    fc.assert(
      fc.property(
        fc.double({ min: Number.MIN_VALUE, noNaN: true, noDefaultInfinity: true }),
        (value) => {
          expect(positiveNumber("x", value, 1)).toBe(value);
        },
      ),
    );
  });

  it("rejects zero, negatives, non-finite numbers and non-numbers, naming the option", () => {
    for (const value of [0, -2, Number.NaN, Number.POSITIVE_INFINITY, "10", null]) {
      const error = optionError(() => positiveNumber("timeoutMs", value, 1));
      expect(error.option).toBe("timeoutMs");
      expect(error.message).toContain("expected a number > 0");
    }
  });
});

describe("optionalString", () => {
  it("returns strings as given and blank or absent ones as undefined", () => {
    expect(optionalString("focus", "  the parser ")).toBe("  the parser ");
    expect(optionalString("focus", undefined)).toBeUndefined();
    expect(optionalString("focus", " \n\t")).toBeUndefined();
  });

  it("rejects anything else, naming the option and the type it got", () => {
    const error = optionError(() => optionalString("instructions", 42));
    expect(error.option).toBe("instructions");
    expect(error.message).toContain("expected a string, got number");
  });
});

describe("perMessageNumbers", () => {
  it("returns one whole number ≥ 0 or null per message, for Chat Completions input", () => {
    expect(perMessageNumbers("seqs", [3, null, 0], 3, "openai")).toEqual([3, null, 0]);
  });

  it("rejects a list of the wrong length or with a wrong entry, and other formats, naming the option", () => {
    const wrong: Array<[unknown, string]> = [
      [[1, 2], "openai"],
      [[1, 2, -1], "openai"],
      [[1, 2, 1.5], "openai"],
      [[1, 2, "3"], "openai"],
      [{ 0: 1, 1: 2, 2: 3 }, "openai"],
      [[1, 2, 3], "anthropic"],
    ];
    for (const [value, format] of wrong) {
      const error = optionError(() =>
        perMessageNumbers("tokenCounts", value, 3, format, ", each a count"),
      );
      expect(error.option).toBe("tokenCounts");
      expect(error.message).toContain("per message, each a count, with format openai");
      expect(error.message).toContain("leave `tokenCounts` out otherwise");
    }
  });
});
