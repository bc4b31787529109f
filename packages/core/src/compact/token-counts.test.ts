import claudeCode from "@condense/test-fixtures/transcripts/claude-code__258c7280-ae70-4798-800f-63464d01a85d.json" with {
  type: "json",
};
import django from "@condense/test-fixtures/transcripts/mini-swe-agent__django__django-11910.json" with {
  type: "json",
};
import ponyc from "@condense/test-fixtures/transcripts/openhands__ponylang__ponyc-4595.json" with {
  type: "json",
};
import pydicom from "@condense/test-fixtures/transcripts/swe-agent__pydicom__pydicom-1458.json" with {
  type: "json",
};
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidOptionsError } from "../errors/condense-error.js";
import type { ChatMessage } from "../messages/types.js";
import { assistant, call, result, user } from "../test-support/conversation.js";
import { arbMessyConversation } from "../test-support/message-arbitraries.js";
import { messageTokens } from "../tokens/count.js";
import { compact } from "./compact.js";
import type { CompactInput, CompactOptions } from "./types.js";

const model = "gpt-4o";

/** A copy the engine has never seen, as a store hands it over on every request. */
const fresh = (messages: readonly unknown[]): ChatMessage[] =>
  JSON.parse(JSON.stringify(messages)) as ChatMessage[];

/** What a store keeps for each message: `messageTokens` of it when it was appended. */
const storedCounts = (messages: readonly unknown[]): number[] =>
  fresh(messages).map((message) => messageTokens(message, model));

const fixtures = [
  { name: "claude-code", messages: claudeCode.messages },
  { name: "django", messages: django.messages },
  { name: "ponyc", messages: ponyc.messages },
  { name: "pydicom", messages: pydicom.messages },
] as const;

describe("compact with the caller's token counts (input.tokenCounts)", () => {
  it("takes each message's count from tokenCounts instead of tokenizing it", async () => {
    const messages = [user("Fix the failing test"), assistant("On it."), user("Thanks")];
    const outcome = await compact(
      { model, messages, tokenCounts: [100, 200, 300] },
      { contextWindow: 128_000 },
    );
    // 3 tokens prime the reply.
    expect(outcome.originalTokens).toBe(603);
    expect(outcome.finalTokens).toBe(603);
  });

  it("counts the messages whose entry is null", async () => {
    const messages = [user("Fix the failing test"), assistant("On it."), user("Thanks")];
    const first = messageTokens(fresh([messages[0]])[0] as ChatMessage, model);
    const last = messageTokens(fresh([messages[2]])[0] as ChatMessage, model);
    const outcome = await compact(
      { model, messages, tokenCounts: [null, 200, null] },
      { contextWindow: 128_000 },
    );
    expect(outcome.originalTokens).toBe(first + 200 + last + 3);
  });

  it("keeps each count with its message when repair drops or adds messages", async () => {
    // Repair drops the orphaned result and adds one for the unanswered call.
    const messages = [
      user("Fix the failing test"),
      result("call_0", "an orphaned result"),
      assistant(null, [call("call_1", "read_file", { path: "a.ts" })]),
      user("Go on"),
    ];
    const outcome = await compact(
      { model, messages, tokenCounts: [10, 20, 30, 40] },
      { contextWindow: 128_000 },
    );
    expect(outcome.compacted).toBe(false);
    expect(outcome.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "user",
    ]);
    const added = messageTokens(outcome.messages[2] as ChatMessage, model);
    expect(outcome.originalTokens).toBe(10 + 20 + 30 + 40 + 3);
    expect(outcome.finalTokens).toBe(10 + 30 + added + 40 + 3);
  });

  it("gives the same result with and without counts on every fixture", async () => {
    const optionSets: CompactOptions[] = [
      { contextWindow: 16_000 },
      { contextWindow: 32_000 },
      { contextWindow: 64_000, force: true },
      { contextWindow: 128_000 },
    ];
    for (const { name, messages } of fixtures) {
      for (const options of optionSets) {
        const counted = await compact({ model, messages: fresh(messages) }, options);
        const given = await compact(
          { model, messages: fresh(messages), tokenCounts: storedCounts(messages) },
          options,
        );
        expect(given, `${name} ${JSON.stringify(options)}`).toEqual(counted);
      }
    }
  });

  it("gives the same result with and without counts on any conversation (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        arbMessyConversation,
        fc.constantFrom(4_000, 8_000, 32_000),
        fc.boolean(),
        async (messages, contextWindow, force) => {
          const options = { contextWindow, force };
          const counted = await compact({ model, messages: fresh(messages) }, options).catch(
            (error: unknown) => error,
          );
          const given = await compact(
            { model, messages: fresh(messages), tokenCounts: storedCounts(messages) },
            options,
          ).catch((error: unknown) => error);
          expect(given).toEqual(counted);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("rejects counts that do not stand for the messages, naming the option", async () => {
    const messages = [user("hello"), assistant("hi")];
    const bad: Array<Partial<CompactInput>> = [
      { tokenCounts: [1] },
      { tokenCounts: [1, 2, 3] },
      { tokenCounts: [1, -2] },
      { tokenCounts: [1, 2.5] },
      { tokenCounts: [1, Number.NaN] },
      { tokenCounts: "12" as never },
      { tokenCounts: [1, "2"] as never },
      { tokenCounts: [1, 2], format: "anthropic" },
    ];
    for (const extra of bad) {
      const error = await compact({ model, messages, ...extra }).catch((caught: unknown) => caught);
      expect(InvalidOptionsError.isInstance(error), JSON.stringify(extra)).toBe(true);
      expect((error as InvalidOptionsError).option).toBe("tokenCounts");
    }
  });
});
