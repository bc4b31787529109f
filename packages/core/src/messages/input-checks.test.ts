import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidMessagesError } from "../errors/condense-error.js";
import {
  field,
  jsonTextNestsTooDeep,
  MAX_NESTING,
  ProblemCollector,
  toWellFormed,
  typeName,
  valueNestsTooDeep,
  wellFormedDeep,
} from "./input-checks.js";

describe("toWellFormed", () => {
  it("replaces lone high and low surrogates, keeps pairs", () => {
    expect(toWellFormed("a\uD800b")).toBe("a\uFFFDb");
    expect(toWellFormed("a\uDC00b")).toBe("a\uFFFDb");
    expect(toWellFormed("\uDC00\uD800")).toBe("\uFFFD\uFFFD");
    expect(toWellFormed("\uD800\uD83D\uDE00")).toBe("\uFFFD\uD83D\uDE00");
    expect(toWellFormed("ok 😀")).toBe("ok 😀");
  });

  it("always yields a string that survives UTF-8 encoding (property)", () => {
    const arbUnits = fc.string({
      unit: fc.integer({ min: 0xd7f0, max: 0xe010 }).map((code) => String.fromCharCode(code)),
    });
    fc.assert(
      fc.property(fc.oneof(arbUnits, fc.string({ unit: "binary" })), (text) => {
        const fixed = toWellFormed(text);
        expect(fixed.length).toBe(text.length);
        expect(new TextDecoder().decode(new TextEncoder().encode(fixed))).toBe(fixed);
      }),
    );
  });
});

describe("wellFormedDeep", () => {
  it("repairs nested strings and keys, and keeps a __proto__ key as data", () => {
    const input = JSON.parse(
      '{"__proto__": {"x": "\\ud800"}, "k\\udc00": ["\\ud800", 1, null]}',
    ) as unknown;
    const copy = wellFormedDeep(input) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(field(copy, "__proto__")).toEqual({ x: "\uFFFD" });
    expect(copy["k\uFFFD"]).toEqual(["\uFFFD", 1, null]);
  });
});

describe("ProblemCollector", () => {
  it("throws one InvalidMessagesError with every problem, and nothing when empty", () => {
    const problems = new ProblemCollector();
    problems.throwIfAny();
    problems.add(1, "role", "unknown_role", "first");
    problems.add(2, "", "not_an_object", "second");
    let error: unknown;
    try {
      problems.throwIfAny();
    } catch (caught) {
      error = caught;
    }
    expect(InvalidMessagesError.isInstance(error)).toBe(true);
    expect((error as InvalidMessagesError).problems.map((problem) => problem.message)).toEqual([
      "first",
      "second",
    ]);
  });

  it("names types for messages", () => {
    expect([null, [], "s", 1, true, undefined, {}].map(typeName)).toEqual([
      "null",
      "an array",
      "a string",
      "a number",
      "a boolean",
      "nothing",
      "an object",
    ]);
  });
});

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
