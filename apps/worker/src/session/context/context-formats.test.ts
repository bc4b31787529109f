import type { ChatMessage } from "@condense/core";
import { describe, expect, it } from "vitest";
import { renderContext } from "./context-formats";

const system: ChatMessage = { role: "system", content: "rules" };
const user: ChatMessage = { role: "user", content: "hello" };

describe("renderContext", () => {
  const compaction = { type: "compaction", encrypted_content: "gAAAA-opaque" };

  it("renders the messages in the format asked for", () => {
    const rendered = renderContext({ messages: [system, user] }, "anthropic");
    expect(rendered).toEqual({ system: "rules", messages: [{ role: "user", content: "hello" }] });
  });

  it("sends OpenAI compaction items as they are, then the messages after them, in Responses", () => {
    const rendered = renderContext(
      { messages: [user], responsesItems: [compaction], rest: [user] },
      "responses",
    );
    expect(rendered.messages[0]).toBe(compaction);
    expect(rendered.messages).toHaveLength(2);
    expect(JSON.stringify(rendered.messages[1])).toContain("hello");
  });

  it("refuses OpenAI compaction items in another format, saying how to ask for Responses", () => {
    const items = { messages: [user], responsesItems: [compaction], rest: [user] };
    expect(() => renderContext(items, "openai")).toThrow(/ask for format=responses or set/);
    expect(() => renderContext(items, "anthropic", { askFor: "use /responses" })).toThrow(
      expect.objectContaining({
        status: 409,
        code: "format_not_available",
        message: expect.stringContaining("use /responses or set the session's strategy to local"),
      }),
    );
  });
});
