import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../messages/types.js";
import {
  assistant,
  bulkyOutput,
  call,
  result,
  system,
  user,
} from "../test-support/conversation.js";
import { countMessageTokens, messageTokens } from "../tokens/count.js";
import { fitContext } from "./fit-context.js";
import { isPrunePlaceholder } from "./prune.js";

const model = "gpt-4o";

function text(message: ChatMessage | undefined): string {
  return typeof message?.content === "string" ? message.content : "";
}

/** A task, one seen read, then one turn of parallel reads whose results (`lines` each) are all new. */
function session(seenLines: number, newLines: readonly number[]): ChatMessage[] {
  const ids = newLines.map((_, i) => `new_${i}`);
  return [
    system("You are a coding agent."),
    user("Find the bug in the importer."),
    assistant("Reading the entry point.", [call("seen_0", "Read", { path: "src/main.ts" })]),
    result("seen_0", bulkyOutput(seenLines, "main")),
    assistant(
      "Reading the parts.",
      ids.map((id, i) => call(id, "Read", { path: `src/part_${i}.ts` })),
    ),
    ...newLines.map((lines, i) => result(ids[i] ?? "", bulkyOutput(lines, `part_${i}`))),
  ];
}

describe("fitContext", () => {
  it("leaves messages that fit as they are", () => {
    const messages = session(20, [20]);
    const fit = fitContext(messages, { model, limit: 100_000 });
    expect(fit.messages).toEqual(messages);
    expect(fit.fits).toBe(true);
    expect(fit.cut).toEqual([]);
  });

  it("prunes what the model has seen before it cuts what it has not", () => {
    const messages = session(600, [300]);
    const seen = messageTokens(messages[3] as ChatMessage, model);
    const limit = countMessageTokens(messages, model) - seen + 200;
    const fit = fitContext(messages, { model, limit });
    expect(fit.fits).toBe(true);
    expect(isPrunePlaceholder(text(fit.messages[3]))).toBe(true);
    expect(fit.pruned.map((output) => output.toolCallId)).toEqual(["seen_0"]);
    expect(fit.messages.at(-1)).toBe(messages.at(-1));
    expect(fit.cut).toEqual([]);
  });

  it("cuts the largest new outputs to one size, leaves the small ones whole, and fits exactly", () => {
    const messages = session(10, [2_000, 1_200, 40, 900]);
    const limit = 30_000;
    expect(countMessageTokens(messages, model)).toBeGreaterThan(60_000);
    const fit = fitContext(messages, { model, limit });
    expect(fit.fits).toBe(true);
    expect(fit.tokens).toBe(countMessageTokens(fit.messages, model));
    expect(fit.tokens).toBeLessThanOrEqual(limit);
    // Nearly the whole limit is used: the cut outputs keep as much as fits.
    expect(fit.tokens).toBeGreaterThan(limit - 200);
    expect(fit.cut.map((output) => output.toolCallId).sort()).toEqual(["new_0", "new_1", "new_3"]);
    // The small result is not cut to make room for the large ones.
    expect(fit.messages[7]).toBe(messages[7]);
    const sizes = fit.cut.map((output) => output.keptTokens);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThan(40);
    for (const [index, name] of [
      [5, "part_0"],
      [6, "part_1"],
      [8, "part_3"],
    ] as const) {
      const kept = text(fit.messages[index]);
      // Never dropped: its first and last lines are there, and a marker says how to get the rest.
      expect(kept.startsWith(`${name} 0: `)).toBe(true);
      expect(kept).toMatch(new RegExp(`${name} \\d+: [^\\n]*$`));
      expect(kept).toMatch(/\[Condense cut \d+ tokens \(lines \d+–\d+ of \d+\) from the middle/);
      expect(kept).toContain(`fetch the whole output by tool call id new_`);
    }
    const original = fit.cut.find((output) => output.toolCallId === "new_0");
    expect(original?.content).toBe(text(messages[5]));
  });

  it("names the recall tool in the marker when the agent has one", () => {
    const messages = session(10, [2_000]);
    const fit = fitContext(messages, { model, limit: 5_000, recallTool: "recall" });
    expect(text(fit.messages.at(-1))).toContain(
      "by tool call id new_0 (the `recall` tool takes it as toolCallId)",
    );
  });

  it("says it does not fit when what it may not cut is over by itself", () => {
    const messages = [
      system("You are a coding agent."),
      user(bulkyOutput(400, "pasted")),
      assistant(null, [call("c1", "Read", { path: "a.ts" })]),
      result("c1", bulkyOutput(400, "a")),
    ];
    const fit = fitContext(messages, { model, limit: 2_000 });
    expect(fit.fits).toBe(false);
    expect(fit.tokens).toBe(countMessageTokens(fit.messages, model));
    expect(fit.tokens).toBeGreaterThan(2_000);
    // The output went down to its marker, and the user's message is whole.
    expect(fit.messages[1]).toBe(messages[1]);
    expect(text(fit.messages[3])).toMatch(/^\[Condense cut \d+ tokens/);
  });

  it("leaves an output already cut to its marker as it is: cut again it would only misstate its figures", () => {
    // Found by the fits-window property (seed 133250824): cut again, a marker-only output became a
    // marker of its own marker ("cut 45 tokens (line 1 of 1)"), a few tokens shorter, and the
    // figures of the whole output were lost.
    const messages = [
      system("You are a coding agent."),
      user(bulkyOutput(400, "pasted")),
      assistant(null, [call("c1", "Read", { path: "a.ts" })]),
      result("c1", bulkyOutput(400, "a")),
    ];
    const once = fitContext(messages, { model, limit: 2_000 });
    const marker = text(once.messages[3]);
    expect(marker).toMatch(/^\[Condense cut \d+ tokens \(lines 1–400 of 400\)/);
    const again = fitContext(once.messages, { model, limit: 0 });
    expect(text(again.messages[3])).toBe(marker);
    expect(again.cut).toEqual([]);
    expect(again.fits).toBe(false);
  });
});
