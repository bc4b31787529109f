import type { ChatMessage } from "@condense/core";
import { describe, expect, it } from "vitest";
import { sinceProviderCompaction } from "./provider-compaction";

const block = (type: string): ChatMessage => ({
  role: "assistant",
  content: `[${type}]`,
  provider_data: { anthropic: { blocks: [{ type, content: "summary" }] } },
});

describe("sinceProviderCompaction", () => {
  const system: ChatMessage = { role: "system", content: "prompt" };
  const user = (text: string): ChatMessage => ({ role: "user", content: text });

  it("keeps the prompt and the messages from the last compaction block on", () => {
    const history = [
      system,
      user("a"),
      block("compaction"),
      user("b"),
      block("compaction"),
      user("c"),
    ];
    expect(sinceProviderCompaction(history)).toEqual([system, block("compaction"), user("c")]);
  });

  it("leaves a history without one as it is, the same array", () => {
    const history = [system, user("a"), block("server_tool_use"), user("b")];
    expect(sinceProviderCompaction(history)).toBe(history);
  });

  it("never reads OpenAI compaction items so (their user messages stay in the window)", () => {
    const item: ChatMessage = {
      role: "user",
      content: "go on",
      provider_data: { responses: { items: [{ type: "compaction", encrypted_content: "x" }] } },
    };
    const history = [system, user("a"), item];
    expect(sinceProviderCompaction(history)).toBe(history);
  });
});
