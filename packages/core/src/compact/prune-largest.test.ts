import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../messages/types.js";
import type { Summarizer } from "../summary/summarizer.js";
import {
  assistant,
  bulkyOutput,
  call,
  result,
  system,
  user,
} from "../test-support/conversation.js";
import { countMessageTokens } from "../tokens/count.js";
import { compact } from "./compact.js";
import { isPrunePlaceholder, pruneToolOutputs } from "./prune.js";

const model = "gpt-4o";

/** An LLM summarizer that counts its calls. */
function countingSummarizer(): Summarizer & { calls: number } {
  const summarizer = {
    name: "counting-llm",
    kind: "llm" as const,
    calls: 0,
    async summarize() {
      summarizer.calls++;
      return {
        summary: "## Goal\nRead the parts.\n\n## Next steps\ncontinue",
        calls: 1,
        inputTokens: 1,
      };
    },
  };
  return summarizer;
}

/**
 * A session that refills fast: after an earlier summary, each turn reads a large part (the tail
 * holds the last few), and the model has answered the last read.
 */
function refillingSession(): ChatMessage[] {
  const messages: ChatMessage[] = [
    system("You are a coding agent."),
    user("Read every part of the importer and list its bugs."),
  ];
  // The largest read is the last one the model saw: in the tail a summary keeps verbatim.
  const sizes = [40, 600, 30, 20, 700];
  sizes.forEach((lines, turn) => {
    const id = `read_${turn}`;
    messages.push(
      assistant(`Reading part ${turn}.`, [call(id, "Read", { path: `part_${turn}.ts` })]),
      result(id, bulkyOutput(lines, `part_${turn}`)),
    );
  });
  messages.push(assistant("Part 4 is short; reading part 5 next."), user("Go on."));
  return messages;
}

function text(message: ChatMessage | undefined): string {
  return typeof message?.content === "string" ? message.content : "";
}

describe("pruneToolOutputs in order of size", () => {
  it("prunes the largest outputs first, and only as many as it must", () => {
    const messages = refillingSession();
    const outcome = pruneToolOutputs(messages, model, {
      from: 0,
      to: messages.length,
      needToSave: 1_000,
      order: "largest",
    });
    // Part 4 (700 lines) alone saves enough; part 1 (600) stays.
    expect(outcome.pruned.map((output) => output.toolCallId)).toEqual(["read_4"]);
    expect(isPrunePlaceholder(text(outcome.messages[11]))).toBe(true);
    expect(outcome.messages[5]).toBe(messages[5]);
  });
});

describe("compact with pruneLargestOutputs (thrashing, issue 33)", () => {
  const options = { contextWindow: 40_000, force: true } as const;

  it("moves the largest outputs, the tail's too, out to recall without a new summary", async () => {
    const messages = refillingSession();
    const summarizer = countingSummarizer();
    const outcome = await compact(
      { model, messages },
      { ...options, summarizer, pruneLargestOutputs: true },
    );
    expect(outcome.compacted).toBe(true);
    expect(outcome.tier).toBe(1);
    expect(summarizer.calls).toBe(0);
    expect(outcome.summary).toBeNull();
    // The largest output went first, though it is in the verbatim tail, and was enough.
    expect(outcome.prunedToolOutputs.map((output) => output.toolCallId)).toEqual(["read_4"]);
    // Its placeholder names the call, for the recall tool to fetch the whole output back.
    expect(text(outcome.messages[11])).toContain("tool call id read_4");
    // Everything before it is as it was: the cached prefix stays.
    expect(outcome.messages.slice(0, 11)).toEqual(messages.slice(0, 11));
    expect(outcome.finalTokens).toBeLessThan(countMessageTokens(messages, model));
  });

  it("summarizes, as before, without it", async () => {
    const summarizer = countingSummarizer();
    const outcome = await compact(
      { model, messages: refillingSession() },
      { ...options, summarizer },
    );
    expect(summarizer.calls).toBeGreaterThan(0);
    expect(outcome.tier).toBeGreaterThan(1);
  });
});
