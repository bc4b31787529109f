/**
 * The gateway's Anthropic Messages and OpenAI Responses routes, driven by the
 * official `@anthropic-ai/sdk` and `openai` clients: histories matched,
 * answers (streamed and not) appended, keys, usage and server-side state.
 */

import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { anthropicClient, freshTag, openaiClient, upstreamCalls } from "../support/gateway-helpers";
import { call, freshSession, status, transcript, waitFor } from "../support/helpers";

type AnthropicParam = Anthropic.Messages.MessageParam;

describe("Anthropic Messages through the gateway", () => {
  it("matches the history turn after turn, tool use included, and appends every answer", async () => {
    const tag = freshTag();
    const session = freshSession("gw-anthropic");
    const client = anthropicClient(tag, { session, scenario: { tool: "read_file" } });
    const messages: AnthropicParam[] = [{ role: "user", content: "Read the entry point." }];
    const first = await client.messages
      .create({ model: "claude-sonnet-5-5", max_tokens: 1024, system: "Be brief.", messages })
      .withResponse();
    expect(first.response.headers.get("X-Condense-Generation")).toBe("1");
    const use = first.data.content.find((block) => block.type === "tool_use");
    if (use?.type !== "tool_use") throw new Error("no tool_use");
    // The agent keeps the SDK's content blocks and answers the call.
    messages.push({ role: "assistant", content: first.data.content });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: use.id, content: "export {};" }],
    });
    const second = await client.messages
      .create({ model: "claude-sonnet-5-5", max_tokens: 1024, system: "Be brief.", messages })
      .withResponse();
    expect(second.response.headers.get("X-Condense-Generation")).toBe("1");

    await waitFor(async () => (await transcript(session)).length === 5, "the second answer");
    const stored = await transcript(session);
    expect(stored.map((entry) => entry.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(stored[3]?.message).toMatchObject({ tool_call_id: use.id, content: "export {};" });
    const calls = await upstreamCalls(tag);
    // The system prompt goes where Anthropic wants it, and the request's other fields untouched.
    expect(calls[1]?.body?.system).toBe("Be brief.");
    expect(calls[1]?.body?.max_tokens).toBe(1024);
    expect(calls[1]?.body?.messages).toHaveLength(3);
  });

  it("streams through, appends the assembled answer and calibrates with the provider's count", async () => {
    const tag = freshTag();
    const session = freshSession("gw-anthropic");
    const client = anthropicClient(tag, { session });
    const stream = client.messages.stream({
      model: "claude-sonnet-5-5",
      max_tokens: 512,
      // Long enough for a calibration sample (prompts under 200 tokens say little about the ratio).
      messages: [
        { role: "user", content: `Summarize in one line: ${"the plan has steps. ".repeat(80)}` },
      ],
    });
    const message = await stream.finalMessage();
    const text = message.content.find((block) => block.type === "text");
    expect(text?.type === "text" ? text.text : "").toMatch(/^Answer \d+$/);
    await waitFor(async () => (await transcript(session)).length === 2, "the streamed answer");
    expect((await transcript(session))[1]?.message.content).toEqual([
      { type: "text", text: text?.type === "text" ? text.text : "" },
    ]);
    // input_tokens of the answer calibrated the session (Claude is estimated, not counted exactly).
    expect((await status(session)).calibration.samples).toBe(1);
  });

  it("authenticates with the Condense key as the SDK's apiKey and sends the deployment's key upstream", async () => {
    const tag = freshTag();
    const client = anthropicClient(tag, { as: null, providerKey: "alice-key" });
    await client.messages.create({
      model: "claude-sonnet-5-5",
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
    });
    const [received] = await upstreamCalls(tag);
    expect(received?.headers["x-api-key"]).toBe("sk-ant-deployment");
    expect(JSON.stringify(received?.headers)).not.toContain("alice-key");
  });

  it("passes the caller's provider key untouched when X-Condense-Key authenticates", async () => {
    const tag = freshTag();
    const client = anthropicClient(tag, { providerKey: "sk-ant-callers-own" });
    await client.messages.create({
      model: "claude-sonnet-5-5",
      max_tokens: 64,
      messages: [{ role: "user", content: "hi" }],
    });
    const [received] = await upstreamCalls(tag);
    // The SDK sends its key as `Authorization: Bearer` (older ones as `x-api-key`): passed as it came.
    const sent = received?.headers["x-api-key"] ?? received?.headers.authorization;
    expect(sent?.replace(/^Bearer /, "")).toBe("sk-ant-callers-own");
    expect(received?.headers["anthropic-version"]).toBeDefined();
    expect(received?.headers["x-condense-key"]).toBeUndefined();
  });
});

describe("OpenAI Responses through the gateway", () => {
  it("matches `input` turn after turn and appends the output items", async () => {
    const tag = freshTag();
    const session = freshSession("gw-responses");
    const client = openaiClient(tag, { session, scenario: { tool: "grep" } });
    const input: unknown[] = [{ role: "user", content: "Find the TODOs." }];
    const first = await client.responses
      .create({ model: "gpt-4o", input: input as never, instructions: "Be brief." })
      .withResponse();
    expect(first.response.headers.get("X-Condense-Generation")).toBe("1");
    const fc = first.data.output.find((item) => item.type === "function_call");
    if (fc?.type !== "function_call") throw new Error("no function_call");
    input.push(...first.data.output, {
      type: "function_call_output",
      call_id: fc.call_id,
      output: "3 TODOs",
    });
    const second = await client.responses
      .create({ model: "gpt-4o", input: input as never, instructions: "Be brief.", stream: true })
      .withResponse();
    expect(second.response.headers.get("X-Condense-Generation")).toBe("1");
    for await (const _event of second.data) {
      // drained
    }
    await waitFor(async () => (await transcript(session)).length === 4, "the streamed answer");
    const stored = await transcript(session);
    expect(stored.map((entry) => entry.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const calls = await upstreamCalls(tag);
    expect(calls[1]?.body?.instructions).toBe("Be brief.");
    // The user message, the answer's message and call, and the call's output.
    expect(calls[1]?.body?.input).toHaveLength(4);
  });

  it("forwards a request chaining previous_response_id unchanged and stores nothing", async () => {
    const tag = freshTag();
    const session = freshSession("gw-responses");
    const client = openaiClient(tag, { session });
    const reply = await client.responses
      .create({ model: "gpt-4o", previous_response_id: "resp_earlier", input: "And then?" })
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Passthrough")).toBe("server-state");
    const [received] = await upstreamCalls(tag);
    expect(received?.body).toEqual({
      model: "gpt-4o",
      previous_response_id: "resp_earlier",
      input: "And then?",
    });
    expect((await call("GET", `/v1/sessions/${session}`)).status).toBe(404);
  });
});

describe("models", () => {
  it("passes the upstream's list of models through", async () => {
    const tag = freshTag();
    const page = await openaiClient(tag).models.list();
    expect(page.data.map((model) => model.id)).toEqual(["test-model"]);
    const [received] = await upstreamCalls(tag);
    expect(received).toMatchObject({ method: "GET", path: "/v1/models" });
    expect(received?.headers.authorization).toBe("Bearer sk-caller-openai");
  });
});
