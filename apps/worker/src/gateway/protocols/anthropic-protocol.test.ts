import { describe, expect, it } from "vitest";
import { anthropicProtocol } from "./anthropic-protocol";

const event = (type: string, fields: Record<string, unknown> = {}) => ({
  event: type,
  data: JSON.stringify({ type, ...fields }),
});

const start = event("message_start", { message: { usage: { input_tokens: 10 } } });
const stop = [
  event("message_delta", { delta: { stop_reason: "end_turn" } }),
  event("message_stop"),
];

describe("the Anthropic stream accumulator", () => {
  it("keeps server-tool blocks: a call's input from its JSON deltas, a result whole", () => {
    const result = {
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_1",
      content: [{ type: "web_search_result", url: "https://example.com", title: "T" }],
    };
    const accumulator = anthropicProtocol.accumulator();
    for (const next of [
      start,
      event("content_block_start", {
        index: 0,
        content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
      }),
      event("content_block_delta", {
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"query":' },
      }),
      event("content_block_delta", {
        index: 0,
        delta: { type: "input_json_delta", partial_json: '"x"}' },
      }),
      event("content_block_stop", { index: 0 }),
      event("content_block_start", { index: 1, content_block: result }),
      event("content_block_stop", { index: 1 }),
      ...stop,
    ])
      accumulator.event(next);
    expect(accumulator.result()?.messages).toEqual([
      {
        role: "assistant",
        content: [
          { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
          result,
        ],
      },
    ]);
  });

  it("stores nothing of an answer with a delta of a kind it does not know (it could not rebuild it)", () => {
    const accumulator = anthropicProtocol.accumulator();
    for (const next of [
      start,
      event("content_block_start", { index: 0, content_block: { type: "future_block" } }),
      event("content_block_delta", { index: 0, delta: { type: "future_delta", part: "x" } }),
      event("content_block_stop", { index: 0 }),
      ...stop,
    ])
      accumulator.event(next);
    expect(accumulator.result()).toBeUndefined();
  });
});
