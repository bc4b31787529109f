import type { ChatMessage } from "@condense/core";
import { describe, expect, it } from "vitest";
import { headEnd, messageKey } from "./bills";

describe("messageKey", () => {
  it("reads a single text part (the client's marked newest message) as its string, marker aside", () => {
    const plain: ChatMessage = { role: "tool", tool_call_id: "c1", content: "output" };
    const marked = {
      role: "tool",
      tool_call_id: "c1",
      content: [{ type: "text", text: "output", cache_control: { type: "ephemeral" } }],
    } as unknown as ChatMessage;
    expect(messageKey(marked)).toBe(messageKey(plain));
    const canonical = { ...marked, content: [{ type: "text", text: "output" }] } as ChatMessage;
    expect(messageKey(canonical)).toBe(messageKey(plain));
    expect(messageKey({ ...plain, content: "other" })).not.toBe(messageKey(plain));
  });

  it("does not depend on key order", () => {
    expect(messageKey({ content: "a", role: "user" } as ChatMessage)).toBe(
      messageKey({ role: "user", content: "a" }),
    );
  });
});

describe("headEnd", () => {
  const of = (...roles: string[]) => roles.map((role, i) => ({ key: `${i}`, tokens: 1, role }));
  it("is the system prompt and three messages, with the tool results of the last", () => {
    expect(headEnd(of("system", "user", "assistant", "assistant", "user"))).toBe(4);
    expect(headEnd(of("system", "user", "assistant", "assistant", "tool", "tool", "user"))).toBe(6);
    expect(headEnd(of("user", "assistant"))).toBe(2);
  });
});
