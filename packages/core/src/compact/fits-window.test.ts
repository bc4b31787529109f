/**
 * What is served always fits (issue 33): over random sessions whose newest
 * tool outputs may be larger than the window, under every policy and
 * summarizer, a compacted context fits its window unless what may not be cut
 * (system prompt, user messages, markers) is over by itself, which the result
 * then says; once it cuts, it fits its budget; and it is valid in every format.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidOptionsError, SummarizerError } from "../errors/condense-error.js";
import { fromAnthropic, toAnthropic } from "../formats/anthropic/convert.js";
import { fromResponses, toResponses } from "../formats/responses/convert.js";
import { validateMessages } from "../formats/validate.js";
import { messageText } from "../messages/content.js";
import type { ChatMessage } from "../messages/types.js";
import { extractiveSummarizer } from "../summary/extractive/extractive.js";
import type { Summarizer } from "../summary/summarizer.js";
import {
  arbConversation,
  assistant,
  bulkyOutput,
  call,
  result,
  user,
} from "../test-support/conversation.js";
import { countMessageTokens } from "../tokens/count.js";
import { compact } from "./compact.js";
import { fitContext } from "./fit-context.js";
import type { CompactOptions, CompactResult } from "./types.js";

const model = "gpt-4o";

/** Runs of the property: each compacts a session twice (once more as an overflow retry would). */
const FITS_WINDOW_RUNS = 120;

const summarizers: Array<fc.Arbitrary<Summarizer>> = [
  fc.constant(extractiveSummarizer()),
  fc.integer({ min: 1, max: 4_000 }).map(
    (words): Summarizer => ({
      name: "overlong-llm",
      kind: "llm",
      async summarize() {
        const body = Array.from({ length: words }, (_, i) => `step${i}`).join(" ");
        return { summary: `## Goal\n${body}\n\n## Next steps\ncontinue`, calls: 1, inputTokens: 1 };
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

/** What the session ends with: new tool outputs (some over the window), or a new user message. */
const arbEnding = (window: number): fc.Arbitrary<ChatMessage[]> =>
  fc.oneof(
    fc
      .array(fc.double({ min: 0.01, max: 1.6, noNaN: true }), { minLength: 1, maxLength: 6 })
      .map((shares) => {
        const ids = shares.map((_, i) => `newest_${i}`);
        return [
          assistant(
            "Reading them all.",
            ids.map((id) => call(id, "Read", { path: `${id}.ts` })),
          ),
          // About 22 tokens a line.
          ...shares.map((share, i) =>
            result(
              ids[i] ?? "",
              bulkyOutput(Math.max(1, Math.round((share * window) / 22)), `n${i}`),
            ),
          ),
        ];
      }),
    fc.constant<ChatMessage[]>([user("Go on with the next module.")]),
  );

const arbCase = fc.integer({ min: 2_000, max: 40_000 }).chain((contextWindow) =>
  fc.record({
    contextWindow: fc.constant(contextWindow),
    messages: fc
      .tuple(arbConversation(16), arbEnding(contextWindow))
      .map(([start, ending]) =>
        start.at(-1)?.role === "assistant" && start.at(-1)?.tool_calls === undefined
          ? [...start, user("Continue."), ...ending]
          : [...start, ...ending],
      ),
    options: fc.record(
      {
        policy: fc.constantFrom("cost" as const, "window" as const),
        threshold: fc.double({ min: 0.3, max: 1, noNaN: true }),
        maxOutputTokens: fc.integer({ min: 0, max: 100_000 }),
        force: fc.boolean(),
        summarizer: fc.oneof(...summarizers),
      },
      { requiredKeys: ["summarizer"] },
    ),
  }),
);

/** The least the result could count: every seen output pruned, every new one cut to its marker. */
function floorOf(messages: readonly ChatMessage[]): number {
  return fitContext(messages, { model, limit: 0 }).tokens;
}

function expectFits(outcome: CompactResult): void {
  expect(outcome.finalTokens).toBe(countMessageTokens(outcome.messages, model));
  if (outcome.finalTokens > outcome.contextWindow) {
    // Over its window only when nothing could have made it fit: then it says so.
    expect(floorOf(outcome.messages)).toBeGreaterThan(outcome.contextWindow);
    expect(outcome.warningLevel).toBe("critical");
  }
  if (newestCuts(outcome).length > 0 && outcome.finalTokens > outcome.budget) {
    // A cut of the newest outputs leaves the reserve free, unless nothing could.
    expect(floorOf(outcome.messages)).toBeGreaterThan(outcome.budget);
  }
}

/**
 * The cuts of outputs after the last assistant turn: made to fit the budget. A small window's
 * recent turns are cut to their share too (`compact/recent-reads`), which promises no budget.
 */
function newestCuts(outcome: CompactResult): CompactResult["cutToolOutputs"] {
  const from = outcome.messages.findLastIndex((message) => message.role === "assistant") + 1;
  const newest = new Set(
    outcome.messages
      .slice(from)
      .flatMap((message) => (message.role === "tool" ? [message.tool_call_id] : [])),
  );
  return outcome.cutToolOutputs.filter((cut) => newest.has(cut.toolCallId));
}

/** Valid for Chat Completions, for Anthropic's Messages, and for the Responses API, there and back. */
function expectValidEverywhere(messages: readonly ChatMessage[]): void {
  expect(validateMessages(messages, "openai").problems).toEqual([]);
  expect(validateMessages(messages, "anthropic").problems).toEqual([]);
  const anthropic = toAnthropic(messages);
  expect(
    validateMessages(
      fromAnthropic({ system: anthropic.system, messages: anthropic.messages }),
      "anthropic",
    ).problems,
  ).toEqual([]);
  expect(validateMessages(fromResponses(toResponses(messages)), "openai").problems).toEqual([]);
}

/** Each new output is in the result: whole, or cut to its head and tail and listed with its whole text. */
function expectNewestThere(input: readonly ChatMessage[], outcome: CompactResult): void {
  const from = input.findLastIndex((message) => message.role === "assistant") + 1;
  for (const message of input.slice(from)) {
    if (message.role !== "tool") continue;
    const sent = outcome.messages.find(
      (candidate) => candidate.role === "tool" && candidate.tool_call_id === message.tool_call_id,
    );
    expect(sent).toBeDefined();
    const text = messageText(sent as ChatMessage);
    if (text === messageText(message)) continue;
    expect(outcome.cutToolOutputs.map((cut) => cut.toolCallId)).toContain(message.tool_call_id);
    expect(text).toMatch(/\[Condense cut \d+ tokens/);
  }
}

describe("every compacted context fits its window (property, issue 33)", () => {
  it("over random sessions whose newest outputs may be larger than the window, and again after a retry", async () => {
    await fc.assert(
      fc.asyncProperty(arbCase, async ({ contextWindow, messages, options }) => {
        const settings: CompactOptions = { contextWindow, ...options };
        let first: CompactResult;
        try {
          first = await compact({ model, messages }, settings);
        } catch (error) {
          // Options no run accepts (a window too small for its summary bounds) are not the point.
          fc.pre(!InvalidOptionsError.isInstance(error));
          throw error;
        }
        expectFits(first);
        expectValidEverywhere(first.messages);
        expectNewestThere(messages, first);
        // Again at half the window, as after a provider stated a smaller one.
        const again = await compact(
          { model, messages: first.messages },
          {
            ...settings,
            contextWindow: Math.floor(contextWindow / 2),
            force: true,
            ledger: first.ledger,
          },
        ).catch((error: unknown) => {
          fc.pre(!InvalidOptionsError.isInstance(error));
          throw error;
        });
        expectFits(again);
        expectValidEverywhere(again.messages);
      }),
      { numRuns: FITS_WINDOW_RUNS },
    );
  });
});
