import type { ChatMessage } from "@condense/core";
import { describe, expect, it } from "vitest";
import { compactCanonical, restoreProviderData } from "./compact-canonical";

function strip(message: ChatMessage): ChatMessage {
  const { provider_data: _dropped, ...rest } = message;
  return rest;
}

const thinking = (text: string) => ({
  anthropic: { thinking: [{ type: "thinking", thinking: text }] },
});
const reasoning = (id: string) => ({ responses: { items: [{ type: "reasoning", id }] } });

const system: ChatMessage = { role: "system", content: "rules" };
const ask: ChatMessage = { role: "user", content: "go" };
const call = (id: string, data?: ChatMessage["provider_data"]): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name: "ls", arguments: "{}" } }],
  ...(data ? { provider_data: data } : {}),
});
const result = (id: string, content = "out"): ChatMessage => ({
  role: "tool",
  tool_call_id: id,
  content,
});
const say = (text: string, data?: ChatMessage["provider_data"]): ChatMessage => ({
  role: "assistant",
  content: text,
  ...(data ? { provider_data: data } : {}),
});
const summary: ChatMessage = { role: "user", content: "<summary>earlier work</summary>" };

describe("restoreProviderData", () => {
  it("puts provider data back on the head and tail a compaction kept, not on the summary", () => {
    const input = [
      system,
      ask,
      call("c1", thinking("t1")),
      result("c1"),
      say("ok", thinking("t-ok")),
      call("c2", reasoning("rs_2")),
      result("c2"),
    ];
    const output = [system, ask, summary, ...input.slice(5)].map(strip);
    expect(restoreProviderData(input, output)).toEqual([system, ask, summary, ...input.slice(5)]);
  });

  it("keeps each repeated message's own data: the tail is aligned from the end", () => {
    const input = [ask, say("ok", thinking("first")), say("ok", thinking("second"))];
    const output = [summary, say("ok")];
    expect(restoreProviderData(input, output)).toEqual([summary, input[2]]);
  });

  it("matches tool traffic by call id, so a pruned output keeps its data", () => {
    const flagged: ChatMessage = {
      ...result("c1", "a long output"),
      provider_data: { anthropic: { is_error: true } },
    };
    const input = [ask, call("c1"), flagged, say("done")];
    const pruned = { ...result("c1", "[tool output pruned]") };
    expect(restoreProviderData(input, [ask, call("c1"), pruned, say("done")])[2]).toEqual({
      ...pruned,
      provider_data: { anthropic: { is_error: true } },
    });
  });

  it("matches content whatever the key order of its parts", () => {
    const parts: ChatMessage = {
      role: "assistant",
      content: [{ text: "hi", type: "text" } as unknown as { type: "text"; text: string }],
      provider_data: thinking("t"),
    };
    const reordered: ChatMessage = { role: "assistant", content: [{ type: "text", text: "hi" }] };
    expect(restoreProviderData([ask, parts], [ask, reordered])[1]).toEqual({
      ...reordered,
      provider_data: parts.provider_data,
    });
  });

  it("keeps messages in between in order and leaves changed ones alone", () => {
    const input = [
      ask,
      say("a", thinking("a")),
      say("b", thinking("b")),
      say("c", thinking("c")),
      say("d", thinking("d")),
    ];
    // Output: head, a summary, then b (kept), then a changed d.
    const output = [ask, summary, say("b"), say("d, changed")];
    expect(restoreProviderData(input, output)).toEqual([ask, summary, input[2], say("d, changed")]);
  });

  it("returns the output as it is when no input message has provider data", () => {
    const output = [ask, summary];
    expect(restoreProviderData([ask, say("x")], output)).toEqual(output);
  });
});

describe("compactCanonical", () => {
  it("keeps the thinking of the messages the engine keeps verbatim", async () => {
    const filler = "export const value = 42; // filler\n".repeat(120);
    const input: ChatMessage[] = [system, ask];
    for (let i = 0; i < 12; i++) input.push(call(`c${i}`), result(`c${i}`, filler));
    input.push(call("last", thinking("why ls")), result("last"));
    const compacted = await compactCanonical(
      { model: "gpt-4o", messages: input },
      { contextWindow: 32_000, tailTokens: 1_500, force: true },
    );
    expect(compacted.compacted).toBe(true);
    expect(compacted.messages.length).toBeLessThan(input.length);
    expect(compacted.messages.find((message) => message.tool_calls?.[0]?.id === "last")).toEqual(
      call("last", thinking("why ls")),
    );
  });
});
