import { describe, expect, it } from "vitest";
import { chatProtocol } from "./chat-protocol";

const chunk = (delta: unknown, finish: string | null = null) => ({
  event: undefined,
  data: JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] }),
});

describe("the usage of a Chat Completions answer", () => {
  it("counts the tokens GPT-5.6 and later wrote to the cache (`cache_write_tokens`), which the bill prices", () => {
    const answer = chatProtocol.answer({
      choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      usage: {
        prompt_tokens: 5_000,
        completion_tokens: 3,
        prompt_tokens_details: { cached_tokens: 1_024, cache_write_tokens: 3_200 },
      },
    });
    expect(answer?.usage).toEqual({
      inputTokens: 5_000,
      cacheReadTokens: 1_024,
      cacheWriteTokens: 3_200,
    });
  });
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
