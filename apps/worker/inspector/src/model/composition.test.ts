import { SUMMARY_CLOSE, SUMMARY_OPEN } from "@condense/core";
import { describe, expect, it } from "vitest";
import type { ChatLike } from "../api/types.ts";
import { composeContext } from "./composition.ts";

const system: ChatLike = { role: "system", content: "You are a coding agent." };
const task: ChatLike = { role: "user", content: "Fix the failing test in src/app.ts" };
const summary: ChatLike = {
  role: "user",
  content: `${SUMMARY_OPEN}\n## Goal\nFix the test\n${SUMMARY_CLOSE}`,
};
const call: ChatLike = {
  role: "assistant",
  content: null,
  tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: "{}" } }],
};
const output: ChatLike = { role: "tool", tool_call_id: "call_1", content: "x".repeat(400) };
const placeholder: ChatLike = {
  role: "tool",
  tool_call_id: "call_1",
  content: "[read output pruned]",
};
const answer: ChatLike = { role: "assistant", content: "Done." };

const byPart = (parts: ReturnType<typeof composeContext>) =>
  Object.fromEntries(
    parts.map((p) => [p.part, { messages: p.messages, tokens: p.tokens, exact: p.exact }]),
  );

describe("composeContext", () => {
  it("counts verbatim messages exactly and shares the rest of the total among the summary and the injected ones", () => {
    const pinned: ChatLike = { role: "system", content: "Always answer in English." };
    const memory: ChatLike = { role: "user", content: "<memories>prefers pnpm</memories>" };
    const parts = composeContext({
      messages: [system, pinned, memory, task, summary, call, placeholder, answer],
      tokens: 1_000,
      pinned: [pinned],
      transcript: [
        { tokens: 10, message: system },
        { tokens: 20, message: task },
        { tokens: 30, message: { role: "assistant", content: "middle" } },
        { tokens: 40, message: call },
        { tokens: 150, message: output },
        { tokens: 5, message: answer },
      ],
    });
    const parts_ = byPart(parts);
    expect(parts_.system).toEqual({ messages: 2, tokens: 30, exact: true });
    expect(parts_.pinned?.exact).toBe(false);
    expect(parts_.memory?.messages).toBe(1);
    expect(parts_.summary?.messages).toBe(1);
    // The tail: the call and the answer exactly, the placeholder estimated.
    expect(parts_.tail?.messages).toBe(3);
    expect(parts_.tail?.exact).toBe(false);
    // Together the parts make up the context's total.
    expect(parts.reduce((sum, p) => sum + p.tokens, 0)).toBeGreaterThanOrEqual(999);
    expect(parts.reduce((sum, p) => sum + p.tokens, 0)).toBeLessThanOrEqual(1_001);
  });

  it("without a summary, puts everything but the system prompt in the tail, all exact", () => {
    const parts = composeContext({
      messages: [system, task, call, output, answer],
      tokens: 225,
      pinned: [],
      transcript: [
        { tokens: 10, message: system },
        { tokens: 20, message: task },
        { tokens: 40, message: call },
        { tokens: 150, message: output },
        { tokens: 5, message: answer },
      ],
    });
    expect(byPart(parts)).toEqual({
      system: { messages: 1, tokens: 10, exact: true },
      pinned: { messages: 0, tokens: 0, exact: true },
      memory: { messages: 0, tokens: 0, exact: true },
      summary: { messages: 0, tokens: 0, exact: true },
      tail: { messages: 4, tokens: 215, exact: true },
    });
  });

  it("uses each transcript message once when the same text repeats", () => {
    const again: ChatLike = { role: "user", content: "Continue." };
    const parts = composeContext({
      messages: [again, answer, again, answer],
      tokens: 100,
      pinned: [],
      transcript: [
        { tokens: 3, message: again },
        { tokens: 5, message: answer },
      ],
    });
    const tail = parts.find((p) => p.part === "tail");
    expect(tail?.messages).toBe(4);
    expect(tail?.exact).toBe(false);
  });
});
