import type { ChatMessage } from "@condense/core";
import { describe, expect, it } from "vitest";
import { withPinned } from "./context-data";

const system: ChatMessage = { role: "system", content: "rules" };
const developer: ChatMessage = { role: "developer", content: "more rules" };
const user: ChatMessage = { role: "user", content: "hello" };
const assistant: ChatMessage = { role: "assistant", content: "hi" };
const pin: ChatMessage = { role: "user", content: "Always answer in French." };

describe("withPinned", () => {
  it("puts pinned messages after the leading system and developer messages", () => {
    expect(withPinned([system, developer, user, assistant], [pin])).toEqual([
      system,
      developer,
      pin,
      user,
      assistant,
    ]);
  });

  it("puts them first when there is no leading system message, and changes nothing without any", () => {
    expect(withPinned([user, system], [pin])).toEqual([pin, user, system]);
    const messages = [system, user];
    expect(withPinned(messages, [])).toBe(messages);
  });
});
