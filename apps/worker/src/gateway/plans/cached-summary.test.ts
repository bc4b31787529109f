import { describe, expect, it } from "vitest";
import { anthropicProtocol } from "../protocols/anthropic-protocol";
import { chatProtocol } from "../protocols/chat-protocol";
import { geminiProtocol } from "../protocols/gemini-protocol";
import { responsesProtocol } from "../protocols/responses-protocol";
import { cachedSummaryChannel, summaryRequestBody } from "./cached-summary";

const instruction = [{ role: "user" as const, text: "Write the summary." }];
const post = async () => {
  throw new Error("not sent in this test");
};

describe("summaryRequestBody", () => {
  it("keeps every field in its place, appends the instruction and asks for no stream", () => {
    const body = {
      model: "claude-sonnet-4-5",
      max_tokens: 512,
      system: [{ type: "text", text: "You are an agent.", cache_control: { type: "ephemeral" } }],
      messages: [{ role: "user", content: "Go on." }],
      tools: [],
      stream: true,
    };
    const sent = summaryRequestBody(anthropicProtocol, body, instruction);
    expect(Object.keys(sent ?? {})).toEqual(Object.keys(body));
    expect(sent).toEqual({
      ...body,
      messages: [...body.messages, { role: "user", content: "Write the summary." }],
      stream: false,
    });
  });

  it("leaves a Chat Completions request without `stream` as it was, and drops stream_options", () => {
    const messages = [{ role: "user", content: "Hi." }];
    expect(summaryRequestBody(chatProtocol, { model: "gpt-4o", messages }, instruction)).toEqual({
      model: "gpt-4o",
      messages: [...messages, { role: "user", content: "Write the summary." }],
    });
    const streamed = { model: "gpt-4o", messages, stream: true, stream_options: {} };
    expect(summaryRequestBody(chatProtocol, streamed, instruction)).toEqual({
      model: "gpt-4o",
      messages: [...messages, { role: "user", content: "Write the summary." }],
      stream: false,
    });
  });

  it("extends a Responses input, and has nothing to extend for a chained one or a Gemini request", () => {
    expect(
      summaryRequestBody(responsesProtocol, { model: "gpt-5", input: "Hi." }, instruction)?.input,
    ).toEqual([
      { role: "user", content: "Hi." },
      { role: "user", content: "Write the summary." },
    ]);
    const chained = { model: "gpt-5", input: [], previous_response_id: "resp_1" };
    expect(summaryRequestBody(responsesProtocol, chained, instruction)).toBeUndefined();
    expect(cachedSummaryChannel(responsesProtocol, { body: chained, post })).toBeUndefined();
    expect(cachedSummaryChannel(geminiProtocol, { body: { contents: [] }, post })).toBeUndefined();
  });
});
