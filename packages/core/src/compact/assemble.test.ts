import { describe, expect, it } from "vitest";
import { SUMMARY_OPEN } from "../summary/template.js";
import { assistant, call, result, system, user } from "../test-support/conversation.js";
import { extractSummary, placeSummary, renderSummaryBlock } from "./assemble.js";

describe("placeSummary", () => {
  it("uses the user role between tool results and an assistant turn", () => {
    const head = [
      system("s"),
      user("task"),
      assistant(null, [call("c1", "bash", {})]),
      result("c1", "ok"),
    ];
    const tail = [assistant("next"), user("more")];
    const placed = placeSummary(head, "## Goal\nship it", tail);
    expect(placed).toHaveLength(7);
    expect(placed[4]?.role).toBe("user");
    expect(placed[4]?.content).toBe(renderSummaryBlock("## Goal\nship it"));
  });

  it("uses the assistant role between two user turns", () => {
    const placed = placeSummary([user("task")], "S", [user("next")]);
    expect(placed.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });

  it("merges into the first tail message when neither role alternates", () => {
    const tail = [assistant("answer"), user("thanks")];
    const placed = placeSummary([user("task")], "S", tail);
    expect(placed).toHaveLength(3);
    expect(placed[1]?.role).toBe("assistant");
    expect(placed[1]?.content).toBe(`${renderSummaryBlock("S")}\n\nanswer`);
  });

  it("starts with a user turn when the head is only the system prompt", () => {
    const placed = placeSummary([system("s")], "S", [assistant("a")]);
    expect(placed.map((m) => m.role)).toEqual(["system", "user", "assistant"]);
  });
});

describe("extractSummary", () => {
  it("round-trips a standalone summary", () => {
    const message = {
      role: "user" as const,
      content: renderSummaryBlock("## Goal\nfix /srv/x.py"),
    };
    expect(extractSummary(message)).toEqual({
      summary: "## Goal\nfix /srv/x.py",
      remainder: undefined,
    });
  });

  it("separates a merged summary from the message it was merged into", () => {
    const [, merged] = placeSummary([user("task")], "## Goal\nG", [
      assistant("answer", [call("c9", "bash", {})]),
      result("c9", "r"),
    ]);
    if (merged === undefined) throw new Error("expected a merged message");
    const found = extractSummary(merged);
    expect(found?.summary).toBe("## Goal\nG");
    expect(found?.remainder?.content).toBe("answer");
    expect(found?.remainder?.tool_calls?.[0]?.id).toBe("c9");
  });

  it("ignores ordinary messages and summaries quoted mid-text", () => {
    expect(extractSummary(user("hello"))).toBeUndefined();
    expect(extractSummary(user(`quote: ${SUMMARY_OPEN}`))).toBeUndefined();
  });
});
