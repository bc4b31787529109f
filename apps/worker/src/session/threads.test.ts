import type { ChatMessage } from "@condense/core";
import { describe, expect, it } from "vitest";
import { requestThread } from "./threads";

const system = (content: string): ChatMessage => ({ role: "system", content });
const user = (content: string): ChatMessage => ({ role: "user", content });

describe("requestThread", () => {
  it("counts every system and developer message that opens the history as its prompt", () => {
    const history: ChatMessage[] = [
      system("You are opencode."),
      { role: "developer", content: "Use the tools." },
      user("Fix it."),
      system("A system turn later on is not part of the prompt."),
    ];
    expect(requestThread(history, {}).promptMessages).toBe(2);
    expect(requestThread([user("quota")], {}).promptMessages).toBe(0);
  });

  it("may lead with tools declared or an answer in its history, not as a one-shot", () => {
    const oneShot = [system("Write a title."), user("Fix the flaky test.")];
    expect(requestThread(oneShot, {}).mayLead).toBe(false);
    expect(requestThread(oneShot, { tools: [] }).mayLead).toBe(false);
    expect(requestThread(oneShot, { tools: [{ name: "Read" }] }).mayLead).toBe(true);
    const answered = [
      ...oneShot,
      { role: "assistant" as const, content: "Done." },
      user("Thanks."),
    ];
    expect(requestThread(answered, {}).mayLead).toBe(true);
  });

  it("knows a title request by its prompt, Responses' instructions included (issue 33)", () => {
    const asks = (prompt: string, body: Record<string, unknown> = {}) =>
      requestThread([system(prompt), user("Fix the flaky test.")], body).asksForTitle;
    expect(asks("Generate a short title for the conversation. Reply with the title only.")).toBe(
      true,
    );
    expect(asks("You are a title generator. You output ONLY a thread title.")).toBe(true);
    expect(asks("Please write a 5-10 word title for the following conversation:")).toBe(true);
    expect(asks("Analyze if this message indicates a new conversation topic.")).toBe(true);
    expect(asks("You are a coding agent. Use your tools.")).toBe(false);
    // A main prompt that mentions titles far into it is not one.
    expect(
      asks(`You are a coding agent.${" Use your tools.".repeat(40)} Titles of conversations.`),
    ).toBe(false);
    const instructions = { instructions: "Generate a short title for the conversation." };
    expect(requestThread([user("Fix the flaky test.")], instructions).asksForTitle).toBe(true);
  });
});
