import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateMessages } from "../formats/validate.js";
import { arbReusedIdConversation } from "../test-support/message-arbitraries.js";
import { ambiguousCallIds, reusedCallIds, ToolCallTracker, toolResultCalls } from "./call-ids.js";
import { repairMessages } from "./repair.js";
import type { ChatMessage } from "./types.js";

const assistant = (...calls: Array<[string, string]>): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: calls.map(([id, name]) => ({
    id,
    type: "function",
    function: { name, arguments: "{}" },
  })),
});
const tool = (id: string, content = "out"): ChatMessage => ({
  role: "tool",
  tool_call_id: id,
  content,
});

describe("ToolCallTracker", () => {
  it("numbers the calls of an id and pairs each result with the latest one", () => {
    const tracker = new ToolCallTracker();
    expect(tracker.call("call_0", 1)).toEqual({ occurrence: 1, unanswered: undefined });
    expect(tracker.result("call_0")).toMatchObject({ kind: "answer", occurrence: 1 });
    expect(tracker.result("call_0")).toMatchObject({ kind: "duplicate", occurrence: 1 });
    expect(tracker.call("call_0", 3)).toEqual({ occurrence: 2, unanswered: undefined });
    expect(tracker.result("call_0")).toMatchObject({ kind: "answer", occurrence: 2 });
    expect(tracker.result("nobody")).toEqual({ kind: "orphan", occurrence: 0, call: undefined });
  });

  it("flags a reuse while the earlier call waits, and can start from a stored state", () => {
    const tracker = new ToolCallTracker([["call_0", { occurrence: 4, answered: false, at: 12 }]]);
    expect(tracker.call("call_0", 15)).toEqual({
      occurrence: 5,
      unanswered: { occurrence: 4, answered: false, at: 12 },
    });
  });
});

describe("toolResultCalls", () => {
  it("tells apart outputs whose calls share an id, with each call's tool", () => {
    const messages = [
      { role: "user", content: "go" } as ChatMessage,
      assistant(["call_0", "grep"], ["call_1", "bash"]),
      tool("call_1"),
      tool("call_0"),
      assistant(["call_0", "read_file"]),
      tool("call_0"),
    ];
    expect([...toolResultCalls(messages)]).toEqual([
      [2, { toolCallId: "call_1", occurrence: 1, toolName: "bash" }],
      [3, { toolCallId: "call_0", occurrence: 1, toolName: "grep" }],
      [5, { toolCallId: "call_0", occurrence: 2, toolName: "read_file" }],
    ]);
    expect(reusedCallIds(messages)).toEqual(new Set(["call_0"]));
  });
});

describe("conversations that number calls afresh every turn (property)", () => {
  it("are valid, need no repair, and every output has its own (id, occurrence)", () => {
    fc.assert(
      fc.property(arbReusedIdConversation, (messages) => {
        expect(ambiguousCallIds(messages)).toEqual([]);
        expect(validateMessages(messages, "openai").problems).toEqual([]);
        const repaired = repairMessages(messages);
        expect(repaired.repairs).toEqual([]);
        const keys = [...toolResultCalls(messages).values()].map(
          (call) => `${call.occurrence}:${call.toolCallId}`,
        );
        expect(new Set(keys).size).toBe(keys.length);
        expect(keys.every((key) => !key.startsWith("0:"))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
