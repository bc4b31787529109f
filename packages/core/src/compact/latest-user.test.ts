import { describe, expect, it } from "vitest";
import { user } from "../test-support/conversation.js";
import { findLatestUser, keepLatestUser, splitLatestUser } from "./latest-user.js";

describe("the latest user message quoted in a summary", () => {
  it("comes back exactly, whitespace included, even once the summary is trimmed", () => {
    for (const text of ["' ", "\n  Fix the parser.  \n\n", "a\n(end of the latest user message)"]) {
      const latest = findLatestUser([user(text)], undefined);
      const placed = keepLatestUser(latest, "## Goal\nfix it", [], [], []);
      expect(splitLatestUser(placed.summary.trim())).toEqual({
        summary: "## Goal\nfix it",
        latest: text,
      });
    }
  });

  it("reads a section written before it had a closing line to the end of the summary", () => {
    expect(splitLatestUser("## Goal\nx\n\n## Latest user message (verbatim)\nold request")).toEqual(
      {
        summary: "## Goal\nx",
        latest: "old request",
      },
    );
    expect(splitLatestUser("## Goal\nx")).toEqual({ summary: "## Goal\nx", latest: undefined });
  });
});
