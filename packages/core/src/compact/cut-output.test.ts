import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../messages/types.js";
import { bulkyOutput, result } from "../test-support/conversation.js";
import { messageTokens } from "../tokens/count.js";
import { type CutFigures, cutMarker, cutToolOutput, isCutOutput } from "./cut-output.js";

const model = "gpt-4o";
const marker = (figures: CutFigures) => cutMarker("Read", "tool call id c1", figures);

function textOf(message: ChatMessage): string {
  return typeof message.content === "string" ? message.content : "";
}

describe("cutToolOutput", () => {
  it("keeps the head and the tail of a long output within the size, and says which lines it cut", () => {
    const output = result("c1", bulkyOutput(2_000, "log"));
    const cut = cutToolOutput(output, 1_000, model, marker);
    if (cut === undefined) throw new Error("not cut");
    expect(messageTokens(cut.message, model)).toBeLessThanOrEqual(1_000);
    // Nearly all of the size is used: the head and the tail are as long as the size allows.
    expect(messageTokens(cut.message, model)).toBeGreaterThan(900);
    const text = textOf(cut.message);
    expect(text.startsWith("log 0: def function_0")).toBe(true);
    expect(text.endsWith("log 1999: def function_1999(value): return value * 1999 + offset")).toBe(
      true,
    );
    const { lines } = cut.figures;
    if (lines === undefined) throw new Error("no lines");
    expect(lines.total).toBe(2_000);
    expect(text).toContain(`lines ${lines.from}–${lines.to} of 2000`);
    expect(text).toContain("fetch the whole output by tool call id c1");
    // The lines it says it cut are exactly the ones missing.
    expect(text).toContain(`log ${lines.from - 2}: `);
    expect(text).not.toContain(`log ${lines.from - 1}: `);
    expect(text).not.toContain(`log ${lines.to - 1}: `);
    expect(text).toContain(`log ${lines.to}: `);
    expect(cut.figures.cutTokens).toBeGreaterThan(messageTokens(output, model) - 1_000);
    expect(isCutOutput(text)).toBe(true);
  });

  it("keeps the call id, the provider data and the parts that are not text", () => {
    const output: ChatMessage = {
      role: "tool",
      tool_call_id: "c1",
      content: [
        { type: "text", text: bulkyOutput(1_500, "page") },
        { type: "image_url", image_url: { url: "https://example.com/shot.png" } },
      ],
      provider_data: { anthropic: { is_error: true } },
    };
    const cut = cutToolOutput(output, 2_000, model, marker);
    if (cut === undefined) throw new Error("not cut");
    expect(cut.message.tool_call_id).toBe("c1");
    expect(cut.message.provider_data).toEqual({ anthropic: { is_error: true } });
    expect(Array.isArray(cut.message.content) && cut.message.content[1]?.type).toBe("image_url");
    expect(messageTokens(cut.message, model)).toBeLessThanOrEqual(2_000);
  });

  it("cuts within a single line by characters", () => {
    const output = result("c1", "x".repeat(40_000));
    const cut = cutToolOutput(output, 300, model, marker);
    if (cut === undefined) throw new Error("not cut");
    expect(cut.figures.lines).toBeUndefined();
    expect(textOf(cut.message)).toMatch(/\(\d+ characters\)/);
    expect(messageTokens(cut.message, model)).toBeLessThanOrEqual(300);
  });

  it("leaves an output that fits, and cannot cut below its marker", () => {
    const output = result("c1", bulkyOutput(50));
    expect(cutToolOutput(output, 10_000, model, marker)).toBeUndefined();
    expect(cutToolOutput(result("c1", bulkyOutput(500)), 10, model, marker)).toBeUndefined();
  });

  it("never counts over the size it was given (property)", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.integer({ min: 10, max: 3_000 }).map((lines) => bulkyOutput(lines, "p")),
          fc.string({ unit: "grapheme", minLength: 500, maxLength: 6_000 }),
          fc.string({ unit: "binary", minLength: 500, maxLength: 6_000 }),
        ),
        fc.integer({ min: 40, max: 4_000 }),
        (text, size) => {
          const cut = cutToolOutput(result("c1", text), size, model, marker);
          if (cut === undefined) return;
          expect(messageTokens(cut.message, model)).toBeLessThanOrEqual(size);
          const kept = textOf(cut.message);
          expect(isCutOutput(kept)).toBe(true);
        },
      ),
      { numRuns: 100 },
    );
  });
});
