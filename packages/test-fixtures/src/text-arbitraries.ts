/**
 * @module text-arbitraries
 * fast-check arbitraries for the text of messages: well-formed text in every
 * shape a conversation holds (ASCII, full Unicode, empty, whitespace-only,
 * occasionally huge).
 */

import fc from "fast-check";

/** Well-formed text: ASCII, full Unicode, empty, whitespace-only, occasionally huge. */
export const arbText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 3, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "\n\n", "\t \n") },
  {
    weight: 1,
    arbitrary: fc.constantFrom("日本語のテキスト", "emoji 🧪🚀 mixed", "ñandú \u0301 combining"),
  },
  { weight: 1, arbitrary: fc.integer({ min: 20_000, max: 120_000 }).map((n) => "x".repeat(n)) },
);

/** Text with at least one non-whitespace character. */
export const arbVisibleText: fc.Arbitrary<string> = arbText.filter((text) => text.trim() !== "");
