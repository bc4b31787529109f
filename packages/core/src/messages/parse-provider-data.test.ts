import { describe, expect, it } from "vitest";
import { InvalidMessagesError } from "../errors/condense-error.js";
import { parseMessages } from "./parse.js";

describe("parseMessages: provider data", () => {
  it("keeps the provider data fromAnthropic and fromResponses attach", () => {
    const thinking = [{ type: "thinking", thinking: "plan", signature: "sig" }];
    const items = [{ type: "reasoning", id: "rs_1", encrypted_content: "enc", summary: [] }];
    const [first, second] = parseMessages([
      {
        role: "assistant",
        content: "a",
        provider_data: { anthropic: { thinking, is_error: false } },
      },
      {
        role: "user",
        content: "b",
        provider_data: { responses: { items, id: "msg_1" }, other: 1 },
      },
    ]);
    expect(first?.provider_data).toEqual({ anthropic: { thinking, is_error: false } });
    expect(second?.provider_data).toEqual({ responses: { items, id: "msg_1" } });
  });

  it("keeps a system turn's flag and never a cache marker (markers belong to the request)", () => {
    const [message] = parseMessages([
      {
        role: "system",
        content: "mid-conversation",
        provider_data: { anthropic: { in_messages: true, cache_control: { type: "ephemeral" } } },
      },
    ]);
    expect(message?.provider_data).toEqual({ anthropic: { in_messages: true } });
  });

  it("rejects provider data of the wrong shape, naming the field", () => {
    let caught: unknown;
    try {
      parseMessages([
        { role: "user", content: "x", provider_data: { anthropic: { thinking: "no" } } },
      ]);
    } catch (error) {
      caught = error;
    }
    expect(InvalidMessagesError.isInstance(caught)).toBe(true);
    expect((caught as InvalidMessagesError).problems[0]?.path).toBe(
      "provider_data.anthropic.thinking",
    );
  });
});
