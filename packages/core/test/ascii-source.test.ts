import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { asciiSource } from "../scripts/ascii-source.ts";

const isAscii = (text: string): boolean => !/[\u0080-\uffff]/.test(text);
// Runs a module body that returns a value, as the bundle's code would run.
const run = (source: string): unknown => new Function(source)();

describe("asciiSource", () => {
  it("leaves ASCII code as it is", () => {
    const code = "const a = 'x';\n// plain\nreturn /a+b/u.test(a);";
    expect(asciiSource(code)).toBe(code);
  });

  it("escapes the characters of regex literals, strings and comments without changing what they mean", () => {
    const code = [
      "// a comment … with 超过",
      "const refusal = /^I['’]m sorry/;",
      "const chinese = /上下文过长|超(?:过|出)/u;",
      "const astral = /^😀+$/u;",
      "return [",
      "  refusal.test('I’m sorry'), refusal.test(\"I'm sorry\"), refusal.test('I‘m sorry'),",
      "  chinese.test('输入上下文过长'), chinese.test('超出'), chinese.test('超'),",
      "  astral.test('😀😀'), astral.test('\\uD83D'), '×…', `tag ✓`,",
      "];",
    ].join("\n");
    const escaped = asciiSource(code);
    expect(isAscii(escaped)).toBe(true);
    expect(run(escaped)).toEqual(run(code));
    expect(run(escaped)).toEqual([
      true,
      true,
      false,
      true,
      true,
      false,
      true,
      false,
      "×…",
      "tag ✓",
    ]);
  });

  it("keeps any string literal's value", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        const code = `return ${JSON.stringify(text)};`;
        const escaped = asciiSource(code);
        expect(isAscii(escaped)).toBe(true);
        expect(run(escaped)).toBe(text);
      }),
    );
  });
});
