import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../messages/types.js";
import {
  agentSession,
  arbConversation,
  assistant,
  call,
  result,
  system,
  user,
} from "../test-support/conversation.js";
import { renderSummaryBlock } from "./assemble.js";
import { findBoundaries, findHeadEnd, findTailStart, smallerTailBudget } from "./boundaries.js";

const ones = (messages: readonly ChatMessage[]) => messages.map(() => 1);

describe("findHeadEnd", () => {
  it("keeps system messages plus the first exchange", () => {
    const messages = [
      system("s"),
      system("s2"),
      user("u"),
      assistant("a"),
      user("u2"),
      assistant("a2"),
    ];
    expect(findHeadEnd(messages, 3)).toBe(5);
    expect(findHeadEnd(messages, 0)).toBe(2);
  });

  it("extends over the results of a trailing tool call", () => {
    const messages = [
      user("u"),
      assistant(null, [call("c1", "bash", {}), call("c2", "bash", {})]),
      result("c1", "x"),
      result("c2", "y"),
      assistant("done"),
    ];
    expect(findHeadEnd(messages, 2)).toBe(4);
  });

  it("stops before a previous summary", () => {
    const messages = [
      system("s"),
      user("u"),
      { role: "user" as const, content: renderSummaryBlock("## Goal\nold") },
      assistant("a"),
    ];
    expect(findHeadEnd(messages, 3, 2)).toBe(2);
    // A marker alone is no summary: without the recognised index it is head content.
    expect(findHeadEnd(messages, 3)).toBe(4);
  });
});

describe("findTailStart", () => {
  it("always holds the newest messages, with the call their results answer", () => {
    const messages = [
      user("a"),
      assistant("b"),
      user("c"),
      assistant(null, [call("c1", "Read", {}), call("c2", "Read", {})]),
      result("c1", "x"),
      result("c2", "y"),
    ];
    // A budget of nothing and no minimum: the tail still starts at the call of the newest results.
    expect(findTailStart(messages, ones(messages), 1, 0, 0, undefined, 4)).toBe(3);
    // Newest messages that are user input need no call.
    const asked = [user("a"), assistant("b"), user("c"), user("d")];
    expect(findTailStart(asked, [10, 10, 1000, 1000], 1, 0, 0, undefined, 2)).toBe(2);
  });

  it("keeps at least minTailMessages even over budget", () => {
    const messages = [user("a"), assistant("b"), user("c"), assistant("d"), user("e")];
    expect(findTailStart(messages, [10, 10, 10, 10, 10], 1, 5, 2)).toBe(3);
  });

  it("fills the token budget beyond the minimum", () => {
    const messages = [user("a"), assistant("b"), user("c"), assistant("d"), user("e")];
    expect(findTailStart(messages, [10, 10, 10, 10, 10], 1, 30, 1)).toBe(2);
  });

  it("never starts on a tool result: moves back to the call", () => {
    const messages = [
      user("u"),
      assistant("x"),
      assistant(null, [call("c1", "bash", {}), call("c2", "bash", {})]),
      result("c1", "1"),
      result("c2", "2"),
      assistant("done"),
    ];
    const start = findTailStart(messages, ones(messages), 1, 2, 1);
    expect(start).toBe(2);
  });

  it("moves a summary that would land in the tail into the middle", () => {
    const messages = [
      user("u"),
      assistant("a"),
      { role: "user" as const, content: renderSummaryBlock("old") },
      assistant("b"),
      user("c"),
    ];
    expect(findTailStart(messages, ones(messages), 1, 100, 1, 2)).toBe(3);
    expect(findTailStart(messages, ones(messages), 1, 100, 1)).toBe(1);
  });
});

describe("boundaries on generated conversations", () => {
  it("never separate a call from its results and keep head ≤ tail start", () => {
    fc.assert(
      fc.property(
        arbConversation(),
        fc.nat(5),
        fc.nat(200),
        fc.nat(6),
        (messages, head, tailTokens, minTail) => {
          const tokens = messages.map((m) =>
            typeof m.content === "string" ? Math.ceil(m.content.length / 4) + 4 : 4,
          );
          const { headEnd, tailStart } = findBoundaries(messages, tokens, {
            headMessages: head,
            tailTokens,
            minTailMessages: minTail,
          });
          expect(headEnd).toBeLessThanOrEqual(tailStart);
          expect(messages[headEnd]?.role).not.toBe("tool");
          expect(messages[tailStart]?.role).not.toBe("tool");
        },
      ),
    );
  });

  it("on an agent session, the tail holds the newest messages within its budget", () => {
    const messages = agentSession(40);
    const tokens = messages.map(() => 100);
    const { headEnd, tailStart } = findBoundaries(messages, tokens, {
      headMessages: 3,
      tailTokens: 1_000,
      minTailMessages: 4,
    });
    expect(headEnd).toBe(4);
    expect(messages.length - tailStart).toBeGreaterThanOrEqual(4);
    expect((messages.length - tailStart) * 100).toBeLessThanOrEqual(1_100);
  });
});

describe("smallerTailBudget", () => {
  const turns = (n: number) =>
    Array.from({ length: n }, (_, i) => (i % 2 === 0 ? user(`u${i}`) : assistant(`a${i}`)));
  const options = { headMessages: 1, minTailMessages: 2 };

  it("halves the budget, and again while the tail would not shrink", () => {
    const messages = turns(20);
    const tokens = messages.map(() => 10);
    // 100 tokens hold 10 messages; 50 hold 5.
    expect(smallerTailBudget(messages, tokens, { ...options, tailTokens: 100 })).toBe(50);
    // 15 tokens hold 2 messages (the minimum); 7 hold 2 as well, so nothing smaller moves the tail.
    expect(smallerTailBudget(messages, tokens, { ...options, tailTokens: 15 })).toBeUndefined();
    // 1,000 tokens hold all 19 messages after the head; halving to 500 and 250 still does; 125 holds 12.
    expect(smallerTailBudget(messages, tokens, { ...options, tailTokens: 1_000 })).toBe(125);
  });

  it("never moves the tail into a call's results", () => {
    const messages = [
      user("u"),
      assistant(null, [call("c1", "bash", {})]),
      result("c1", "x"),
      assistant(null, [call("c2", "bash", {})]),
      result("c2", "y"),
      assistant("done"),
    ];
    const tokens = messages.map(() => 10);
    const budget = smallerTailBudget(messages, tokens, {
      headMessages: 1,
      minTailMessages: 1,
      tailTokens: 40,
    });
    expect(budget).toBe(20);
    const { tailStart } = findBoundaries(messages, tokens, {
      headMessages: 1,
      minTailMessages: 1,
      tailTokens: budget ?? 0,
    });
    expect(messages[tailStart]?.role).not.toBe("tool");
  });
});
