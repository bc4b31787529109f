import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidOptionsError, SummarizerError } from "../errors/condense-error.js";
import { validateMessages } from "../formats/validate.js";
import { messageText } from "../messages/content.js";
import type { ChatMessage } from "../messages/types.js";
import { extractiveSummarizer } from "../summary/extractive.js";
import type { Summarizer } from "../summary/summarizer.js";
import { SUMMARY_OPEN } from "../summary/template.js";
import {
  arbConversation,
  assistant,
  bulkyOutput,
  call,
  result,
  system,
  user,
} from "../test-support/conversation.js";
import { countMessageTokens } from "../tokens/count.js";
import { compact } from "./compact.js";
import { resolveOptions } from "./options.js";
import { protectedFrom } from "./protected-tail.js";
import type { CompactOptions, CompactResult } from "./types.js";

const model = "gpt-4o";

/** The messages after the last assistant message: what the model asked for and has not seen yet. */
function newest(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.slice(messages.findLastIndex((message) => message.role === "assistant") + 1);
}

/**
 * Every message after the input's last assistant turn ends the output, as it was: only the first may
 * carry a summary block in front of its text (the engine merges the block into it when no role of
 * its own fits between the head and it), and a tool output that could not fit otherwise may be cut
 * to its head and tail, then listed in `cut` with its whole content (issue 33): never dropped.
 */
function expectNewestKept(
  input: readonly ChatMessage[],
  output: readonly ChatMessage[],
  cut: CompactResult["cutToolOutputs"] = [],
): void {
  const kept = newest(input);
  expect(output.length).toBeGreaterThanOrEqual(kept.length);
  const ending = output.slice(output.length - kept.length);
  kept.forEach((message, index) => {
    const sent = ending[index];
    const merged =
      index === 0 &&
      message.role === "user" &&
      sent?.role === "user" &&
      typeof message.content === "string" &&
      typeof sent.content === "string" &&
      sent.content.startsWith(SUMMARY_OPEN) &&
      sent.content.endsWith(`\n\n${message.content}`);
    if (merged) return;
    const listed = cut.find(
      (output) => message.role === "tool" && output.toolCallId === message.tool_call_id,
    );
    if (listed === undefined) {
      expect(sent).toEqual(message);
      return;
    }
    expect(sent?.tool_call_id).toBe(message.tool_call_id);
    expect(listed.content).toBe(messageText(message));
    expect(messageText(sent as ChatMessage)).toMatch(/\[Condense cut \d+ tokens \(/);
  });
}

/** A Claude Code session: Read calls answered by file contents, the last one just answered. */
function readSession(reads: number, lastLines: number): ChatMessage[] {
  const messages: ChatMessage[] = [
    system("You are Claude Code, Anthropic's official CLI for Claude."),
    user("Find why the importer drops rows with a trailing comma, and fix it."),
  ];
  for (let turn = 0; turn < reads; turn++) {
    const id = `toolu_${turn.toString().padStart(4, "0")}`;
    messages.push(
      assistant(`Reading src/importer/part_${turn}.ts.`, [
        call(id, "Read", { file_path: `/repo/src/importer/part_${turn}.ts` }),
      ]),
      result(id, bulkyOutput(turn === reads - 1 ? lastLines : 30, `part_${turn}`)),
    );
  }
  return messages;
}

describe("the newest messages are never compacted", () => {
  it("keeps the Read output the model just asked for, with max_tokens above the window (Claude Code at 48k)", async () => {
    // The newest Read takes half the window; the request's max_tokens (64,000) is above all of it.
    const messages = readSession(6, 1_250);
    const tokens = countMessageTokens(messages, model);
    expect(tokens).toBeGreaterThan(24_000);
    expect(tokens).toBeLessThan(32_000);
    const outcome = await compact(
      { model, messages },
      { contextWindow: 48_000, maxOutputTokens: 64_000 },
    );
    expect(outcome.messages.at(-1)).toEqual(messages.at(-1));
    expectNewestKept(messages, outcome.messages);
  });

  it("cuts the newest output to its head and tail when it alone does not fit, never dropping it (issue 33)", async () => {
    // Nothing between the head and the newest output to summarize: the output alone is over.
    const messages = [
      system("You are a coding agent."),
      user("Read the log."),
      assistant(null, [call("c1", "Read", { file_path: "/var/log/app.log" })]),
      result("c1", bulkyOutput(900, "log")),
    ];
    const outcome = await compact({ model, messages }, { contextWindow: 16_000 });
    expect(outcome.finalTokens).toBeLessThanOrEqual(outcome.budget);
    expect(outcome.warningLevel).toBe("none");
    expect(outcome.compacted).toBe(true);
    expect(outcome.messages.slice(0, 3)).toEqual(messages.slice(0, 3));
    const cut = outcome.messages[3];
    const text = typeof cut?.content === "string" ? cut.content : "";
    expect(cut?.tool_call_id).toBe("c1");
    expect(text.startsWith("log 0: ")).toBe(true);
    expect(text.endsWith("log 899: def function_899(value): return value * 899 + offset")).toBe(
      true,
    );
    expect(text).toMatch(
      /\[Condense cut \d+ tokens \(lines \d+–\d+ of 900\) from the middle of this Read output so the context fits its window; fetch the whole output by tool call id c1\.\]/,
    );
    expect(outcome.cutToolOutputs).toEqual([
      expect.objectContaining({
        toolCallId: "c1",
        toolName: "Read",
        content: messages[3]?.content,
      }),
    ]);
  });

  it("fits six new outputs that are over the window together (a sub-agent's reads at 32k, issue 33)", async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `toolu_${i}`);
    const messages = [
      system("You are a Claude Code sub-agent."),
      user("Survey the importer and report."),
      assistant(
        "Reading six parts.",
        ids.map((id, i) => call(id, "Read", { file_path: `/repo/part_${i}.ts` })),
      ),
      ...ids.map((id, i) => result(id, bulkyOutput(290, `part_${i}`))),
    ];
    expect(countMessageTokens(messages, model)).toBeGreaterThan(32_000);
    const outcome = await compact({ model, messages }, { contextWindow: 32_000 });
    expect(outcome.finalTokens).toBeLessThanOrEqual(outcome.budget);
    expect(outcome.cutToolOutputs.map((output) => output.toolCallId)).toEqual(ids);
    expect(validateMessages(outcome.messages, "openai").ok).toBe(true);
    expect(validateMessages(outcome.messages, "anthropic").ok).toBe(true);
  });

  it("strips older outputs harder when the newest ones take most of the window", async () => {
    const messages = readSession(40, 100);
    // Three reads in one turn, all new: the turn's results take most of the budget.
    messages.push(
      assistant("Reading three more.", [
        call("toolu_a", "Read", { file_path: "/repo/a.ts" }),
        call("toolu_b", "Read", { file_path: "/repo/b.ts" }),
        call("toolu_c", "Read", { file_path: "/repo/c.ts" }),
      ]),
      result("toolu_a", bulkyOutput(280, "a")),
      result("toolu_b", bulkyOutput(280, "b")),
      result("toolu_c", bulkyOutput(280, "c")),
    );
    const outcome = await compact({ model, messages }, { contextWindow: 32_000, force: true });
    expect(outcome.compacted).toBe(true);
    expectNewestKept(messages, outcome.messages, outcome.cutToolOutputs);
    expect(outcome.finalTokens).toBeLessThanOrEqual(outcome.contextWindow);
    expect(outcome.finalTokens).toBeLessThan(outcome.originalTokens);
  });

  it("takes an earlier summary merged into the newest user message out of it, and leaves the message", async () => {
    const [prompt, task, ...reads] = readSession(20, 100);
    if (prompt === undefined || task === undefined) throw new Error("no session");
    const question = "Which of these parts parses the trailing comma?";
    const messages = [
      prompt,
      task,
      assistant("I will read the importer's parts first."),
      user("Go ahead."),
      ...reads,
      assistant("I have read every part."),
      user(question),
    ];
    // A head that ends on an answer and a tail of the question alone: the summary is merged into it.
    const options: CompactOptions = {
      contextWindow: 32_000,
      headMessages: 2,
      tailTokens: 0,
      minTailMessages: 1,
      force: true,
    };
    const first = await compact({ model, messages }, options);
    const merged = first.messages.at(-1);
    expect(typeof merged?.content === "string" && merged.content.startsWith(SUMMARY_OPEN)).toBe(
      true,
    );
    expectNewestKept(messages, first.messages);

    // Again before the model answers, with a shorter head (the fallback's defaults differ): the
    // head's first exchange is now the middle, and the previous summary stands in the tail.
    const again = await compact(
      { model, messages: first.messages },
      { ...options, headMessages: 0, ledger: first.ledger },
    );
    expect(again.compacted).toBe(true);
    expectNewestKept(messages, again.messages);
    // One summary, not the old one kept beside the new one.
    const blocks = JSON.stringify(again.messages).split(SUMMARY_OPEN).length - 1;
    expect(blocks).toBe(1);
  });

  it("never prunes, summarizes or drops a message after the last assistant turn, whatever the tier; cuts an output only when it cannot fit", async () => {
    const summarizers: Array<fc.Arbitrary<Summarizer>> = [
      fc.constant(extractiveSummarizer()),
      fc.integer({ min: 1, max: 3_000 }).map(
        (words): Summarizer => ({
          name: "fake-llm",
          kind: "llm",
          async summarize() {
            // Sometimes far over its budget, so the placed summary must be pruned around to fit.
            const body = Array.from({ length: words }, (_, i) => `step${i}`).join(" ");
            return {
              summary: `## Goal\n${body}\n\n## Next steps\ncontinue`,
              calls: 1,
              inputTokens: 1,
            };
          },
        }),
      ),
      fc.constant<Summarizer>({
        name: "failing-llm",
        kind: "llm",
        async summarize() {
          throw new SummarizerError("server_error", "the summarizer is down");
        },
      }),
    ];
    await fc.assert(
      fc.asyncProperty(
        arbConversation(24),
        fc.record(
          {
            contextWindow: fc.integer({ min: 1_000, max: 40_000 }),
            threshold: fc.double({ min: 0.2, max: 1, noNaN: true }),
            maxOutputTokens: fc.integer({ min: 0, max: 100_000 }),
            headMessages: fc.integer({ min: 0, max: 4 }),
            tailTokens: fc.integer({ min: 0, max: 8_000 }),
            minTailMessages: fc.integer({ min: 0, max: 5 }),
            force: fc.boolean(),
            summarizer: fc.oneof(...summarizers),
          },
          { requiredKeys: ["contextWindow", "summarizer"] },
        ),
        async (messages, options: CompactOptions) => {
          let first: CompactResult;
          try {
            first = await compact({ model, messages }, options);
          } catch (error) {
            // Options no engine run accepts (a window too small for any summary) are not the point.
            fc.pre(!InvalidOptionsError.isInstance(error));
            throw error;
          }
          expectNewestKept(messages, first.messages, first.cutToolOutputs);
          // Compacted again before the model answers (an overflow retry): its summary is recognised,
          // wherever it stands, and the newest messages are still untouched.
          const again = await compact(
            { model, messages: first.messages },
            { ...options, force: true, ledger: first.ledger },
          );
          expectNewestKept(messages, again.messages, [
            ...first.cutToolOutputs,
            ...again.cutToolOutputs,
          ]);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe("protectedFrom", () => {
  it("is the index after the last assistant message, or 0 when there is none", () => {
    expect(protectedFrom([system("s"), user("u")], undefined)).toBe(0);
    expect(
      protectedFrom(
        [user("u"), assistant(null, [call("c", "f", {})]), result("c", "out"), user("more")],
        undefined,
      ),
    ).toBe(2);
    expect(protectedFrom([user("u"), assistant("done")], undefined)).toBe(2);
  });

  it("does not count the engine's own summary, standing alone after the last answer, as new", () => {
    const messages = [
      user("u"),
      assistant("a"),
      user(`${SUMMARY_OPEN}\nsummary\n</compacted-context>`),
    ];
    expect(protectedFrom(messages, 2)).toBe(3);
  });
});

describe("the reserve for the answer", () => {
  it("takes at most a quarter of the window from max_tokens", () => {
    // Agents send their model's output ceiling; reserving all of it would leave little for the context.
    expect(
      resolveOptions(model, { contextWindow: 200_000, maxOutputTokens: 64_000 }),
    ).toMatchObject({
      reserveTokens: 50_000,
      budget: 150_000,
    });
    expect(
      resolveOptions(model, { contextWindow: 48_000, maxOutputTokens: 64_000 }).reserveTokens,
    ).toBe(20_000);
    expect(
      resolveOptions(model, { contextWindow: 200_000, maxOutputTokens: 32_000 }).reserveTokens,
    ).toBe(32_000);
    // An explicit reserve is the caller's decision: still capped at half the window only.
    expect(
      resolveOptions(model, { contextWindow: 48_000, reserveTokens: 30_000 }).reserveTokens,
    ).toBe(24_000);
  });
});
