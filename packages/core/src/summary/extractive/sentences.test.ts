import { describe, expect, it } from "vitest";
import { TRUNCATION_MARK } from "../ledger/ledger.js";
import {
  CONSTRAINT,
  DECISION,
  DONE,
  FUTURE,
  matching,
  SPECULATION,
  withoutCutSentence,
} from "./sentences.js";

describe("matching", () => {
  it("picks statements from prose, never from code, tables, questions or list headers", () => {
    const text = [
      "You must keep the public API unchanged. Can we avoid a new dependency?",
      "```",
      "// you must not see this line in a summary",
      "```",
      "| never | a table row |",
      "- Always run the tests before committing.",
      "Each response should include:",
    ].join("\n");
    expect(matching([text], CONSTRAINT)).toEqual([
      "You must keep the public API unchanged.",
      "Always run the tests before committing.",
    ]);
  });

  it("leaves out sentences the exclusion matches, and repeats none", () => {
    const texts = [
      "I decided to use the cache instead of a second query.",
      "Maybe the root cause is the retry loop.",
      "I decided to use the cache instead of a second query.",
    ];
    expect(matching(texts, DECISION, SPECULATION)).toEqual([
      "I decided to use the cache instead of a second query.",
    ]);
  });

  it("tells work reported done from work still planned", () => {
    const texts = ["I've fixed the header_rows support. Next, I will run the existing RST tests."];
    expect(matching(texts, DONE, FUTURE)).toEqual(["I've fixed the header_rows support."]);
  });
});

describe("withoutCutSentence", () => {
  it("drops the sentence a truncated request was cut in, with the mark", () => {
    expect(withoutCutSentence(`Fix the bug. Then refactor the pars${TRUNCATION_MARK}`)).toBe(
      "Fix the bug.",
    );
    expect(withoutCutSentence("Fix the bug.")).toBe("Fix the bug.");
    expect(withoutCutSentence(`Refactor the pars${TRUNCATION_MARK}`)).toBe("");
  });
});
