import { describe, expect, it } from "vitest";
import { chatProtocol } from "./chat-protocol";

const chunk = (delta: unknown, finish: string | null = null) => ({
  event: undefined,
  data: JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] }),
});

describe("the Chat Completions stream accumulator", () => {
  it("assembles a custom tool call from its deltas, beside a function call", () => {
    const accumulator = chatProtocol.accumulator();
    for (const event of [
      chunk({ role: "assistant", content: null }),
      chunk({
        tool_calls: [
          { index: 0, id: "call_p", type: "custom", custom: { name: "apply_patch", input: "" } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, custom: { input: "*** Begin" } }] }),
      chunk({ tool_calls: [{ index: 0, custom: { input: " Patch" } }] }),
      chunk({
        tool_calls: [
          { index: 1, id: "call_f", type: "function", function: { name: "ls", arguments: "{}" } },
        ],
      }),
      chunk({}, "tool_calls"),
    ])
      accumulator.event(event);
    expect(accumulator.result()?.messages).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_p",
            type: "custom",
            custom: { name: "apply_patch", input: "*** Begin Patch" },
          },
          { id: "call_f", type: "function", function: { name: "ls", arguments: "{}" } },
        ],
      },
    ]);
  });
});
