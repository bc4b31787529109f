import { describe, expect, it } from "vitest";
import { responsesProtocol } from "./responses-protocol";

const event = (type: string, fields: Record<string, unknown>) => ({
  event: type,
  data: JSON.stringify({ type, ...fields }),
});

describe("the Responses stream accumulator", () => {
  const call = { type: "custom_tool_call", call_id: "call_p", name: "apply_patch", input: "x" };
  const search = { type: "web_search_call", id: "ws_1", status: "completed", action: {} };

  it("takes the output items of any type from the last event", () => {
    const accumulator = responsesProtocol.accumulator();
    accumulator.event(event("response.completed", { response: { output: [search, call] } }));
    expect(accumulator.result()?.messages).toEqual([search, call]);
  });

  it("takes the finished items when the last event's output is empty", () => {
    const accumulator = responsesProtocol.accumulator();
    accumulator.event(event("response.output_item.done", { output_index: 1, item: call }));
    accumulator.event(event("response.output_item.done", { output_index: 0, item: search }));
    accumulator.event(event("response.completed", { response: { output: [] } }));
    expect(accumulator.result()?.messages).toEqual([search, call]);
  });
});

describe("the Responses answer's usage", () => {
  const usage = { input_tokens: 120, output_tokens: 30, total_tokens: 150 };

  it("reads the prompt's and the answer's tokens of a body and of a stream", () => {
    expect(responsesProtocol.answer({ output: [], usage })).toMatchObject({
      usage: { inputTokens: 120 },
      outputTokens: 30,
    });
    const accumulator = responsesProtocol.accumulator();
    accumulator.event(event("response.completed", { response: { output: [], usage } }));
    expect(accumulator.result()).toMatchObject({
      usage: { inputTokens: 120 },
      outputTokens: 30,
    });
  });

  it("counts the tokens written to the cache (`input_tokens_details.cache_write_tokens`, GPT-5.6 and later)", () => {
    const written = {
      ...usage,
      input_tokens_details: { cached_tokens: 20, cache_write_tokens: 90 },
    };
    expect(responsesProtocol.answer({ output: [], usage: written })?.usage).toEqual({
      inputTokens: 120,
      cacheReadTokens: 20,
      cacheWriteTokens: 90,
    });
  });
});
