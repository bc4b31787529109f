import { describe, expect, it } from "vitest";
import type { ChatMessage } from "./canonical-message.js";
import { fromCanonical } from "./from-canonical.js";
import { PromptMemory } from "./message-keys.js";

describe("canonical custom tool calls (Codex's apply_patch, stored by the gateway)", () => {
  const call = {
    id: "call_p",
    type: "custom" as const,
    custom: { name: "apply_patch", input: "*** Begin Patch\n*** End Patch" },
  };
  const messages: ChatMessage[] = [
    { role: "user", content: "Patch it." },
    { role: "assistant", content: null, tool_calls: [call] },
    { role: "tool", tool_call_id: "call_p", content: "Done." },
  ];

  it("become AI SDK tool calls with their text as input, and their results name the tool", () => {
    const prompt = fromCanonical(messages, new PromptMemory());
    expect(prompt[1]).toEqual({
      role: "assistant",
      content: [
        {
          type: "tool-call",
          toolCallId: "call_p",
          toolName: "apply_patch",
          input: "*** Begin Patch\n*** End Patch",
        },
      ],
    });
    expect(prompt[2]).toMatchObject({
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "call_p", toolName: "apply_patch" }],
    });
  });
});
