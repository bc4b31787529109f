import { describe, expect, it } from "vitest";
import type { ChatMessage } from "./canonical-message.js";
import { canonicalKey } from "./message-keys.js";

describe("canonicalKey of custom tool calls (Codex's apply_patch, stored by the gateway)", () => {
  const call = {
    id: "call_p",
    type: "custom" as const,
    custom: { name: "apply_patch", input: "{}" },
  };

  it("tells them from a function call of the same name and text", () => {
    const fn: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_p", type: "function", function: { name: "apply_patch", arguments: "{}" } },
      ],
    };
    const custom: ChatMessage = {
      role: "assistant",
      content: null,
      tool_calls: [call],
    };
    expect(canonicalKey(custom)).not.toBe(canonicalKey(fn));
  });
});
