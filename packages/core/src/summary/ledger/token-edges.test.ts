import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countBrackets, splitAt, splitAtSeparators, trimEdges, trimUrl } from "./token-edges.js";

describe("token edges", () => {
  it("trims a URL's sentence punctuation and the brackets it did not open", () => {
    expect(trimUrl("https://a.example/x).")).toBe("https://a.example/x");
    expect(trimUrl("https://en.wikipedia.org/wiki/Foo_(bar))")).toBe(
      "https://en.wikipedia.org/wiki/Foo_(bar)",
    );
    expect(trimUrl("https://a.example/q?x=[1]")).toBe("https://a.example/q?x=[1]");
  });

  it("trims emphasis, punctuation and unbalanced brackets from both ends of a token", () => {
    expect(trimEdges("(**src/a.ts**),")).toBe("src/a.ts");
    expect(trimEdges("f(x)")).toBe("f(x)");
    expect(trimEdges("src/f(x))")).toBe("src/f(x)");
  });

  it("splits at code punctuation, saying which delimiter follows each piece", () => {
    expect(splitAt("res.json(x)", "()")).toEqual([
      { text: "res.json", next: "(" },
      { text: "x", next: ")" },
    ]);
    expect(splitAtSeparators("abc1234..def5678")).toEqual(["abc1234", "def5678"]);
    expect(splitAtSeparators("git@github.com:o/r")).toEqual(["git", "github.com", "o/r"]);
    expect(splitAtSeparators("plain")).toEqual(["plain"]);
  });

  it("counts each bracket as often as it stands in the text (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("(", ")", "[", "]", "{", "}", "a", "é") }),
        (text) => {
          const counts = countBrackets(text);
          for (const bracket of ["(", ")", "[", "]", "{", "}"] as const) {
            expect(counts[bracket]).toBe(text.split(bracket).length - 1);
          }
        },
      ),
    );
  });
});
