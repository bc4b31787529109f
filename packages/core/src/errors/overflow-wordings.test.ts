import { RegExpParser } from "@eslint-community/regexpp";
import { analyse } from "scslre";
import { describe, expect, it } from "vitest";
import { extractors, notOverflowWordings, overflowWordings } from "./overflow-wordings.js";

// Error text comes from upstreams and proxies the gateway does not control, so a pattern that
// backtracks super-linearly is a denial of service. scslre proves the absence of that for a
// pattern statically (for attack strings that repeat one character, the shape that bit us: a
// Chinese wording with two neighbouring `\s*` took 2.4 s on 64k spaces). The runtime pumps in
// overflow.test.ts exercise the same on real input.
const parser = new RegExpParser();
const superLinear = (pattern: RegExp): string[] =>
  analyse(parser.parseLiteral(String(pattern))).reports.map(
    (report) => `${report.type}${report.exponential ? " (exponential)" : ""}: ${String(pattern)}`,
  );

describe("the wording table", () => {
  const table = [...overflowWordings, ...notOverflowWordings, ...extractors.map((e) => e.pattern)];

  it("has no pattern that can backtrack super-linearly", () => {
    expect(table.flatMap(superLinear)).toEqual([]);
  });

  it("is checked by an analysis that does catch super-linear patterns", () => {
    // The quadratic wording that once shipped, and a figure pattern without a leading word
    // (it is retried at every digit of a long number).
    expect(
      superLinear(/(?:上下文|输入|提示词?|prompt)\s*(?:长度)?\s*(?:超过|超出|超长)/i),
    ).toHaveLength(1);
    expect(superLinear(/\d+ tokens > \d+ maximum/i)).toHaveLength(1);
  });
});
