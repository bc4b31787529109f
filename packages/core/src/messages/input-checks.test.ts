import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidMessagesError } from "../errors/condense-error.js";
import { field, ProblemCollector, toWellFormed, typeName, wellFormedDeep } from "./input-checks.js";

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
        // The standard's own repair (ES2024), which Node has.
        expect(fixed).toBe((text as string & { toWellFormed(): string }).toWellFormed());
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

  it("copies well-formed JSON as it is, keys in their order, prototypes untouched (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const copy = wellFormedDeep(value);
        expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
        expect(copy).toStrictEqual(value);
      }),
    );
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
