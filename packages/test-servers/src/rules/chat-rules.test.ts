import { describe, expect, it } from "vitest";
import { chatRoleViolation, chatToolViolation, chatViolation } from "./chat-rules.ts";

const assistantCalls = (...ids: string[]) => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map((id) => ({
    id,
    type: "function",
    function: { name: "read", arguments: "{}" },
  })),
});
const tool = (id: string) => ({ role: "tool", tool_call_id: id, content: "ok" });

describe("roles", () => {
  it("refuses an empty messages array and an unknown role", () => {
    expect(chatRoleViolation({ messages: [] })?.code).toBe("empty_array");
    expect(chatRoleViolation({ messages: [{ role: "model", content: "x" }] })?.message).toBe(
      "Invalid value: 'model'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
    );
  });
});

describe("tool calls", () => {
  it("accepts every tool_call answered by a tool message right after", () => {
    const body = {
      messages: [{ role: "user", content: "go" }, assistantCalls("a", "b"), tool("a"), tool("b")],
    };
    expect(chatToolViolation(body)).toBeUndefined();
  });

  it("refuses a tool_call left unanswered", () => {
    const body = {
      messages: [
        { role: "user", content: "go" },
        assistantCalls("a", "b"),
        tool("a"),
        { role: "user", content: "?" },
      ],
    };
    const violation = chatToolViolation(body);
    expect(violation?.message).toBe(
      "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: b",
    );
    expect(violation?.param).toBe("messages.[1].role");
  });

  it("refuses a tool message that answers no call (its assistant turn pruned)", () => {
    const body = { messages: [{ role: "user", content: "go" }, tool("a")] };
    expect(chatToolViolation(body)?.message).toBe(
      "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    );
    expect(chatViolation(body)?.status).toBe(400);
  });
});
