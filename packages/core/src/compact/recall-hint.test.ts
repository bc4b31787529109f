import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../errors/condense-error.js";
import type { ChatMessage } from "../messages/types.js";
import type { SummarizeRequest, Summarizer } from "../summary/summarizer.js";
import { assistant, user } from "../test-support/conversation.js";
import { extractSummary, recallHint } from "./assemble.js";
import { compact } from "./compact.js";

const model = "gpt-4o";
const HINT = recallHint("recall");

/** How often the recall line appears in the whole context. */
function hintCount(messages: readonly ChatMessage[]): number {
  return messages
    .map((message) =>
      typeof message.content === "string"
        ? message.content
        : (message.content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("\n"),
    )
    .reduce((sum, text) => sum + text.split(HINT).length - 1, 0);
}

/** A chat with little tool output, so pruning alone cannot make it fit: it gets a summary. */
function chat(turns: number, from = 0): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let i = from; i < from + turns; i++) {
    messages.push(
      user(`Request ${i}: explain src/lib/part_${i}.ts. ${"Details follow. ".repeat(40)}`),
    );
    messages.push(
      assistant(`Answer ${i}: ${"The module does things in a careful way. ".repeat(40)}`),
    );
  }
  return messages;
}

const sections =
  "## Goal\nship it\n\n## Progress\nsome\n\n## Files\nnone\n\n## Exact identifiers\nnone\n\n## Next steps\ncontinue";

function fakeLLM(): Summarizer & { requests: SummarizeRequest[] } {
  const requests: SummarizeRequest[] = [];
  return {
    name: "fake-llm",
    kind: "llm",
    requests,
    async summarize(request) {
      requests.push(request);
      return { summary: sections, calls: 1, inputTokens: 100 };
    },
  };
}

describe("recallTool: the summary's recall line", () => {
  it("puts exactly one recall line in the deterministic summary's block, and none without the option", async () => {
    const messages = chat(60);
    const withHint = await compact(
      { model, messages },
      { contextWindow: 40_000, recallTool: "recall" },
    );
    expect(withHint.tier).toBe(4);
    expect(hintCount(withHint.messages)).toBe(1);
    // The line belongs to the block, not to the summary (whose digest anchors the next compaction).
    expect(withHint.summary).not.toContain(HINT);

    const without = await compact({ model, messages }, { contextWindow: 40_000 });
    expect(without.tier).toBe(4);
    expect(JSON.stringify(without.messages)).not.toContain("Earlier details were compacted away");
  });

  it("puts it in the LLM summary's block too, and never hands it to the summarizer", async () => {
    const summarizer = fakeLLM();
    const first = await compact(
      { model, messages: chat(60) },
      { contextWindow: 40_000, summarizer, recallTool: "recall" },
    );
    expect(first.tier).toBe(2);
    expect(hintCount(first.messages)).toBe(1);
    const second = await compact(
      { model, messages: [...first.messages, ...chat(40, 100)] },
      { contextWindow: 40_000, summarizer, recallTool: "recall", ledger: first.ledger },
    );
    expect(second.compacted).toBe(true);
    expect(hintCount(second.messages)).toBe(1);
    const previous = summarizer.requests.at(-1)?.previousSummary;
    expect(previous).toBeDefined();
    expect(previous).not.toContain("Earlier details were compacted away");
  });

  it("survives re-compaction without duplicating, and goes when the option does", async () => {
    const first = await compact(
      { model, messages: chat(60) },
      { contextWindow: 40_000, recallTool: "recall" },
    );
    let messages = first.messages;
    let ledger = first.ledger;
    for (let round = 0; round < 3; round++) {
      const next = await compact(
        { model, messages: [...messages, ...chat(40, 200 + round * 50)] },
        { contextWindow: 40_000, recallTool: "recall", ledger },
      );
      expect(next.compacted).toBe(true);
      expect(hintCount(next.messages)).toBe(1);
      const block = next.messages.find((message) => extractSummary(message) !== undefined);
      expect(block && extractSummary(block)?.summary).not.toContain(HINT);
      messages = next.messages;
      ledger = next.ledger;
    }
    const off = await compact(
      { model, messages: [...messages, ...chat(40, 900)] },
      { contextWindow: 40_000, ledger },
    );
    expect(off.compacted).toBe(true);
    expect(JSON.stringify(off.messages)).not.toContain("Earlier details were compacted away");
  });

  it.each([[""], ["has space"], ["x".repeat(65)], [42]])("rejects recallTool %j", async (value) => {
    const failure = await compact(
      { model, messages: chat(3) },
      { recallTool: value as unknown as string },
    ).catch((error: unknown) => error);
    expect(InvalidOptionsError.isInstance(failure)).toBe(true);
  });
});
