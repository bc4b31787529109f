import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { snippetRuns } from "./snippet.ts";

describe("snippetRuns", () => {
  it("cuts a snippet into plain and marked runs", () => {
    expect(snippetRuns("…ran <mark>pytest</mark> on <mark>tests/test_x.py</mark>")).toEqual([
      { text: "…ran ", marked: false },
      { text: "pytest", marked: true },
      { text: " on ", marked: false },
      { text: "tests/test_x.py", marked: true },
    ]);
    expect(snippetRuns("the **needle** and «other»")).toEqual([
      { text: "the ", marked: false },
      { text: "needle", marked: true },
      { text: " and ", marked: false },
      { text: "other", marked: true },
    ]);
  });

  it("keeps markup it does not know as text", () => {
    expect(snippetRuns('<img src=x onerror="alert(1)">')).toEqual([
      { text: '<img src=x onerror="alert(1)">', marked: false },
    ]);
  });

  it("keeps every character that is not a marker, in order", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.stringMatching(/^[^<>*[\]«»]*$/), fc.boolean())),
        (parts) => {
          const snippet = parts
            .map(([text, marked]) => (marked && text !== "" ? `<mark>${text}</mark>` : text))
            .join("");
          expect(
            snippetRuns(snippet)
              .map((r) => r.text)
              .join(""),
          ).toBe(parts.map(([text]) => text).join(""));
        },
      ),
    );
  });
});
