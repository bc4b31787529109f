import { SUMMARY_CLOSE, SUMMARY_OPEN } from "@condense/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffSummaries, summarySections, writtenSummaries } from "./summary-diff.ts";

const first = `## Goal
Fix the failing test in src/app.ts

## Progress
- Done: read src/app.ts
- In progress: run the tests

## Files
- read: src/app.ts`;

const second = `${SUMMARY_OPEN}
## Goal
Fix the failing test in src/app.ts

## Progress
- Done: read src/app.ts
- Done: patched the parser

## Next steps
- run pnpm test
${SUMMARY_CLOSE}`;

describe("summarySections", () => {
  it("splits by heading, drops blank lines and the context marker, keeps text before any heading", () => {
    expect(
      summarySections(`intro line\n\n# Exact identifiers\n- 3f0c1d9e\n\n${SUMMARY_CLOSE}`),
    ).toEqual([
      { title: "", lines: ["intro line"] },
      { title: "Exact identifiers", lines: ["- 3f0c1d9e"] },
    ]);
    expect(summarySections("## Progress\n### Done\n- a\n### Blocked\n- b")).toEqual([
      { title: "Progress", lines: ["### Done", "- a", "### Blocked", "- b"] },
    ]);
    expect(summarySections(second).map((s) => s.title)).toEqual(["Goal", "Progress", "Next steps"]);
  });
});

describe("diffSummaries", () => {
  it("reports per section what was added and what was dropped", () => {
    const diff = diffSummaries(first, second);
    expect(diff).toEqual([
      {
        title: "Goal",
        change: "unchanged",
        added: [],
        dropped: [],
        kept: ["Fix the failing test in src/app.ts"],
      },
      {
        title: "Progress",
        change: "changed",
        added: ["- Done: patched the parser"],
        dropped: ["- In progress: run the tests"],
        kept: ["- Done: read src/app.ts"],
      },
      { title: "Next steps", change: "added", added: ["- run pnpm test"], dropped: [], kept: [] },
      { title: "Files", change: "removed", added: [], dropped: ["- read: src/app.ts"], kept: [] },
    ]);
  });

  it("loses no line: each line of either summary is kept, added or dropped", () => {
    const line = fc.stringMatching(/^[a-z ]{1,12}$/).filter((s) => s.trim() !== "");
    const summary = fc
      .array(
        fc.tuple(fc.constantFrom("Goal", "Progress", "Files"), fc.array(line, { maxLength: 5 })),
        {
          maxLength: 3,
        },
      )
      .map((sections) =>
        sections.map(([title, lines]) => `## ${title}\n${lines.join("\n")}`).join("\n\n"),
      );
    fc.assert(
      fc.property(summary, summary, (before, after) => {
        const diff = diffSummaries(before, after);
        const lines = (text: string) =>
          summarySections(text).flatMap((s) => s.lines.map((l) => `${s.title}:${l}`));
        const fromDiff = (pick: (d: (typeof diff)[number]) => string[]) =>
          diff.flatMap((d) => pick(d).map((l) => `${d.title}:${l}`));
        // Sections repeated under one heading merge in the map, so compare as multisets of the last one's lines.
        const uniqueTitles = (text: string) => {
          const titles = summarySections(text).map((s) => s.title);
          return new Set(titles).size === titles.length;
        };
        fc.pre(uniqueTitles(before) && uniqueTitles(after));
        expect([...fromDiff((d) => d.kept), ...fromDiff((d) => d.dropped)].sort()).toEqual(
          lines(before).sort(),
        );
        expect([...fromDiff((d) => d.kept), ...fromDiff((d) => d.added)].sort()).toEqual(
          lines(after).sort(),
        );
      }),
    );
  });
});

describe("writtenSummaries", () => {
  it("leaves out a compaction that kept the summary before it (a tool strip), and those with none", () => {
    const events = [
      { id: 1, summary: null },
      { id: 2, summary: first },
      // A tool strip: the summary it hands back is the one compaction #2 wrote.
      { id: 3, summary: first },
      { id: 4, summary: "  " },
      { id: 5, summary: second },
      { id: 6, summary: second },
    ];
    expect(writtenSummaries(events).map((event) => event.id)).toEqual([2, 5]);
  });

  it("keeps a summary that comes back after another one (property: no two neighbours equal)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.constantFrom("a", "b", "c"), { nil: null }), { maxLength: 12 }),
        (texts) => {
          const events = texts.map((summary, id) => ({ id, summary }));
          const written = writtenSummaries(events);
          for (let i = 1; i < written.length; i++)
            expect(written[i]?.summary).not.toBe(written[i - 1]?.summary);
          // Every distinct run of summaries is there, in order, by its first compaction.
          const runs = events.filter(
            (event, i) =>
              event.summary !== null &&
              event.summary !== events.slice(0, i).findLast((e) => e.summary !== null)?.summary,
          );
          expect(written.map((event) => event.id)).toEqual(runs.map((event) => event.id));
        },
      ),
    );
  });
});
