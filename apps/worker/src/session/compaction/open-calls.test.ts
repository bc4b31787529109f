import type { ChatMessage } from "@condense/core";
import { describe, expect, it } from "vitest";
import { openCallGroupLength } from "./open-calls";

const user: ChatMessage = { role: "user", content: "go" };
const calling = (...ids: string[]): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "f", arguments: "{}" } })),
});
const result = (id: string): ChatMessage => ({ role: "tool", tool_call_id: id, content: "ok" });

describe("openCallGroupLength", () => {
  it("finds a trailing call without its results, with the results that did come", () => {
    expect(openCallGroupLength([user, calling("a")])).toBe(1);
    expect(openCallGroupLength([user, calling("a", "b"), result("a")])).toBe(2);
  });

  it("is 0 when every call is answered, nothing is called, or a later turn abandoned the call", () => {
    expect(openCallGroupLength([])).toBe(0);
    expect(openCallGroupLength([user])).toBe(0);
    expect(openCallGroupLength([user, calling("a", "b"), result("b"), result("a")])).toBe(0);
    expect(openCallGroupLength([user, calling("a"), user])).toBe(0);
    expect(openCallGroupLength([user, { role: "assistant", content: "done" }])).toBe(0);
  });
});
