import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildTimeline, type CompactionTokens } from "./timeline.ts";

const event = (
  id: number,
  toSeq: number,
  tokensBefore: number,
  tokensAfter: number,
  tier = 4,
): CompactionTokens => ({
  id,
  tier,
  trigger: "append",
  tokensBefore,
  tokensAfter,
  range: { fromSeq: 1, toSeq },
});

describe("buildTimeline", () => {
  it("grows with each message, steps to the API's figures at each compaction, and grows again", () => {
    const messages = [1, 2, 3, 4, 5].map((seq) => ({ seq, tokens: 100 }));
    const timeline = buildTimeline(messages, [event(1, 3, 310, 120, 1)]);
    expect(timeline.points).toEqual([
      { seq: 1, raw: 100, context: 100 },
      { seq: 2, raw: 200, context: 200 },
      { seq: 3, raw: 300, context: 300 },
      { seq: 3, raw: 300, context: 310 },
      { seq: 3, raw: 300, context: 120 },
      { seq: 4, raw: 400, context: 220 },
      { seq: 5, raw: 500, context: 320 },
    ]);
    expect(timeline.marks).toEqual([{ ...event(1, 3, 310, 120, 1), seq: 3 }]);
    expect(timeline.rawTotal).toBe(500);
  });

  it("applies compactions of the same snapshot in commit order, and ones past the last message at the end", () => {
    const messages = [1, 2].map((seq) => ({ seq, tokens: 50 }));
    const timeline = buildTimeline(messages, [
      event(2, 2, 90, 40),
      event(1, 2, 100, 90),
      event(3, 9, 60, 30),
    ]);
    expect(timeline.points.slice(2).map((p) => p.context)).toEqual([100, 90, 90, 40, 60, 30]);
    expect(timeline.marks.map((m) => m.id)).toEqual([1, 2, 3]);
  });

  it("keeps raw monotone, ends at the transcript's total, and draws every compaction's before and after", () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 5_000 }), { maxLength: 60 }),
        fc.array(
          fc.tuple(fc.nat({ max: 70 }), fc.nat({ max: 100_000 }), fc.nat({ max: 100_000 })),
          {
            maxLength: 8,
          },
        ),
        (tokens, events) => {
          const messages = tokens.map((t, i) => ({ seq: i + 1, tokens: t }));
          // Each compaction folds in from after the previous one: snapshots never go back.
          const snapshots = events.map(([toSeq]) => toSeq).sort((a, b) => a - b);
          const compactions = events.map(([, before, after], i) =>
            event(i + 1, snapshots[i] ?? 0, before, after),
          );
          const { points, marks, rawTotal } = buildTimeline(messages, compactions);
          expect(rawTotal).toBe(tokens.reduce((a, b) => a + b, 0));
          for (let i = 1; i < points.length; i++) {
            expect(points[i]?.raw).toBeGreaterThanOrEqual(points[i - 1]?.raw ?? 0);
            expect(points[i]?.seq).toBeGreaterThanOrEqual(points[i - 1]?.seq ?? 0);
          }
          expect(points.length).toBe(messages.length + 2 * compactions.length);
          for (const mark of marks) {
            const at = points.filter((p) => p.seq === mark.seq).map((p) => p.context);
            expect(at).toContain(mark.tokensBefore);
            expect(at).toContain(mark.tokensAfter);
          }
        },
      ),
    );
  });
});
