import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { asciiPattern, isAscii } from "./ascii-pattern.js";
import { pattern as cl100kPattern } from "./rank-data/cl100k-base.js";
import { pattern as o200kPattern } from "./rank-data/o200k-base.js";

const pieces = (pattern: string, text: string): string[] =>
  Array.from(text.matchAll(new RegExp(pattern, "gu")), (match) => match[0]);

// ASCII text with many of what the patterns tell apart: cases, digits, apostrophe suffixes,
// runs of spaces before newlines, punctuation before a slash or a newline.
const asciiText = fc
  .array(
    fc.oneof(
      fc.constantFrom("'s", "'T", "'re", "'LL", "'d", " ", "  ", "\n", "\r\n", " \n", "\t", "/"),
      fc.constantFrom("a", "Z", "Hello", "WORLD", "camelCase", "x1", "123456", "...", "?!", "_"),
      fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)) }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => parts.join(""));

describe("asciiPattern", () => {
  for (const [name, pattern] of [
    ["o200k_base", o200kPattern],
    ["cl100k_base", cl100kPattern],
  ] as const) {
    it(`splits ASCII text exactly as ${name}'s pattern does (property)`, () => {
      const ascii = asciiPattern(pattern);
      expect(ascii).not.toMatch(/\\p/);
      fc.assert(
        fc.property(asciiText, (text) => {
          expect(pieces(ascii, text)).toEqual(pieces(pattern, text));
        }),
        { numRuns: 2000 },
      );
    });
  }

  it("rewrites properties inside and outside classes, an empty one as a class matching nothing", () => {
    expect(asciiPattern(String.raw`[^\r\n\p{L}\p{N}]?\p{Lu}+`)).toBe(
      String.raw`[^\r\nA-Za-z0-9]?[A-Z]+`,
    );
    expect(asciiPattern(String.raw`\p{M}|[\p{Lo}]|\[\p{N}\]`)).toBe(String.raw`[]|[]|\[[0-9]\]`);
  });

  it("refuses what it cannot rewrite", () => {
    expect(() => asciiPattern(String.raw`\p{Sc}`)).toThrow(/no ASCII range known/);
    expect(() => asciiPattern(String.raw`\P{L}`)).toThrow(/only \\p\{…\} escapes/);
    expect(() => asciiPattern(String.raw`\pL`)).toThrow(/only \\p\{…\} escapes/);
  });
});

describe("isAscii", () => {
  it("is true exactly when no character is above U+007F", () => {
    expect(isAscii("")).toBe(true);
    expect(isAscii("plain text\n\t~\u007f")).toBe(true);
    expect(isAscii("caf\u00e9")).toBe(false);
    expect(isAscii("\u{1f600}")).toBe(false);
    expect(isAscii("\ud800")).toBe(false);
  });
});
