import { countTokens } from "@condense/core";
import { describe, expect, it } from "vitest";
import { anthropicProtocol } from "../protocols/anthropic-protocol";
import { chatProtocol } from "../protocols/chat-protocol";
import { responsesProtocol } from "../protocols/responses-protocol";
import { requestOverhead } from "./request-overhead";

const readTool = {
  name: "Read",
  description: "Reads a file from the local filesystem.",
  input_schema: { type: "object", properties: { file_path: { type: "string" } } },
};
const chatTool = {
  type: "function",
  function: { name: "read", parameters: { type: "object", properties: {} } },
};

describe("requestOverhead", () => {
  it("counts the tool definitions as the JSON they came in, for the request's model", () => {
    const body = { model: "claude-opus-4-6", tools: [readTool], messages: [] };
    const expected = countTokens(JSON.stringify([readTool]), "claude-opus-4-6");
    expect(expected).toBeGreaterThan(0);
    expect(requestOverhead(anthropicProtocol, body)).toBe(expected);
    // Counted again from the isolate's cache: the same figure.
    expect(requestOverhead(anthropicProtocol, { ...body })).toBe(expected);
    expect(requestOverhead(chatProtocol, { model: "gpt-4o", tools: [chatTool] })).toBe(
      countTokens(JSON.stringify([chatTool]), "gpt-4o"),
    );
  });

  it("counts Responses instructions as text beside its tools, and Anthropic's system not at all", () => {
    const instructions = "You are Codex, a coding agent. Keep answers short.";
    expect(
      requestOverhead(responsesProtocol, { model: "gpt-5.5", instructions, tools: [chatTool] }),
    ).toBe(
      countTokens(instructions, "gpt-5.5") + countTokens(JSON.stringify([chatTool]), "gpt-5.5"),
    );
    // Anthropic's system is the history's first message, counted with the messages.
    expect(
      requestOverhead(anthropicProtocol, { model: "claude-opus-4-6", system: instructions }),
    ).toBe(0);
  });

  it("is 0 for a request without tools, or with an empty list", () => {
    expect(requestOverhead(chatProtocol, { model: "gpt-4o", messages: [] })).toBe(0);
    expect(requestOverhead(chatProtocol, { model: "gpt-4o", tools: [] })).toBe(0);
    expect(requestOverhead(responsesProtocol, { model: "gpt-4o", tools: null })).toBe(0);
  });
});
