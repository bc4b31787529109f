import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  hasSummaryMarker,
  neutralizeSummaryMarkers,
  SUMMARY_CLOSE,
  SUMMARY_OPEN,
  splitSummaryBlocks,
  withoutSummaryBlocks,
} from "./template.js";

describe("splitSummaryBlocks", () => {
  it("finds closed, unclosed and stray blocks, in any spelling of the tags", () => {
    const text = `a${SUMMARY_OPEN}x${SUMMARY_CLOSE}b< Compacted-Context >y</ compacted-context>c</compacted-context>d${SUMMARY_OPEN}tail`;
    expect(splitSummaryBlocks(text)).toEqual([
      { text: "a", quoted: false },
      { text: `${SUMMARY_OPEN}x${SUMMARY_CLOSE}`, quoted: true },
      { text: "b", quoted: false },
      { text: "< Compacted-Context >y</ compacted-context>", quoted: true },
      { text: "c", quoted: false },
      { text: "</compacted-context>", quoted: true },
      { text: "d", quoted: false },
      { text: `${SUMMARY_OPEN}tail`, quoted: true },
    ]);
    expect(withoutSummaryBlocks(text)).toBe("abcd");
  });

  it("cuts text into segments that join back to it (property)", () => {
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom(SUMMARY_OPEN, SUMMARY_CLOSE, "<COMPACTED-CONTEXT>", "< /compacted-context >"),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const text = parts.join("");
        const segments = splitSummaryBlocks(text);
        expect(segments.map((segment) => segment.text).join("")).toBe(text);
        expect(hasSummaryMarker(withoutSummaryBlocks(text))).toBe(false);
      }),
    );
  });
});

describe("neutralizeSummaryMarkers", () => {
  it("leaves no marker tag a reader could take for one", () => {
    const text = `quoted ${SUMMARY_CLOSE} and ${SUMMARY_OPEN} and </ COMPACTED-CONTEXT>`;
    const clean = neutralizeSummaryMarkers(text);
    expect(hasSummaryMarker(clean)).toBe(false);
    expect(clean).toBe(
      "quoted [/compacted-context] and [compacted-context] and [/compacted-context]",
    );
  });
});
