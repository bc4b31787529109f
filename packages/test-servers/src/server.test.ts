import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { lastUserText, requestText } from "./request-text.ts";
import { verifies } from "./rules/signatures.ts";
import { startTestServer, type TestServer } from "./server.ts";
import { templateHandler } from "./template-summary.ts";

/** Sections of a summary template (the engine's are `@condense/core`'s `SUMMARY_SECTIONS`). */
const SECTIONS = ["Goal", "Critical context", "Next steps"];
const summaries = templateHandler(SECTIONS);

let server: TestServer;
const controlCalls: string[] = [];

beforeAll(async () => {
  server = await startTestServer(summaries, {
    control: (request) => {
      controlCalls.push(`${request.method} ${request.path}`);
      return request.path === "/ping" ? { body: { pong: request.body?.n ?? null } } : undefined;
    },
  });
});

afterAll(async () => {
  await server.close();
});

beforeEach(() => {
  server.requests.length = 0;
  controlCalls.length = 0;
  server.setHandler(summaries);
});

const client = () => new OpenAI({ apiKey: "test", baseURL: server.url, maxRetries: 0 });
const claude = () => new Anthropic({ apiKey: "test", baseURL: server.origin, maxRetries: 0 });

const readCall = {
  id: "call_7",
  name: "read_file",
  arguments: JSON.stringify({ path: "src/module_7.ts" }),
};

/** The raw SSE text of a streamed request, up to where the server cut it. */
async function streamText(path: string, body: unknown): Promise<string> {
  const response = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error("expected a response body");
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    // The server cut the connection: what arrived before is the answer.
  }
  return text;
}

describe("Chat Completions tool calls", () => {
  it("answers with the scripted calls, finish reason tool_calls and no content", async () => {
    server.setHandler(() => ({ type: "completion", toolCalls: [readCall] }));
    const completion = await client().chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "read it" }],
    });
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe("tool_calls");
    expect(choice?.message.content).toBeNull();
    expect(choice?.message.tool_calls).toEqual([
      {
        id: "call_7",
        type: "function",
        function: { name: "read_file", arguments: readCall.arguments },
      },
    ]);
    expect(server.requests.map((request) => request.protocol)).toEqual(["chat"]);
  });

  it("streams the id and name first, then the arguments in pieces", async () => {
    server.setHandler(() => ({ type: "completion", toolCalls: [readCall] }));
    const stream = await client().chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "read it" }],
      stream: true,
    });
    const deltas = [];
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) deltas.push(call);
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(deltas[0]).toMatchObject({ index: 0, id: "call_7", function: { name: "read_file" } });
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.map((delta) => delta.function?.arguments ?? "").join("")).toBe(
      readCall.arguments,
    );
    expect(finish).toBe("tool_calls");
  });
});

describe("Responses", () => {
  it("answers text with the scripted usage, and records the request as responses", async () => {
    server.setHandler(() => ({
      type: "completion",
      content: "All done.",
      usage: { prompt_tokens: 120, completion_tokens: 3 },
    }));
    const response = await client().responses.create({
      model: "m",
      instructions: "Be brief.",
      input: [{ role: "user", content: "Is it done?" }],
    });
    expect(response.status).toBe("completed");
    expect(response.output_text).toBe("All done.");
    expect(response.usage).toMatchObject({
      input_tokens: 120,
      output_tokens: 3,
      total_tokens: 123,
    });
    const [recorded] = server.requests;
    expect(recorded?.protocol).toBe("responses");
    expect(recorded && requestText(recorded)).toBe("Be brief.\n\nIs it done?");
    expect(recorded && lastUserText(recorded)).toBe("Is it done?");
  });

  it("takes a string input as one user message", async () => {
    await client().responses.create({ model: "m", input: "hello there" });
    const [recorded] = server.requests;
    expect(recorded && lastUserText(recorded)).toBe("hello there");
  });

  it("answers tool calls as function_call items, streaming and not", async () => {
    server.setHandler(() => ({ type: "completion", toolCalls: [readCall] }));
    const response = await client().responses.create({ model: "m", input: "read it" });
    expect(response.output).toMatchObject([
      {
        type: "function_call",
        call_id: "call_7",
        name: "read_file",
        arguments: readCall.arguments,
      },
    ]);

    const stream = await client().responses.create({ model: "m", input: "read it", stream: true });
    let args = "";
    let done: unknown;
    for await (const event of stream) {
      if (event.type === "response.function_call_arguments.delta") args += event.delta;
      if (event.type === "response.output_item.done") done = event.item;
    }
    expect(args).toBe(readCall.arguments);
    expect(done).toMatchObject({ type: "function_call", call_id: "call_7" });
  });

  it("streams created, the item, its text part's deltas, the item done and completed, numbered in order", async () => {
    const text = "A long answer. ".repeat(20);
    server.setHandler(() => ({ type: "completion", content: text }));
    const stream = await client().responses.create({ model: "m", input: "go", stream: true });
    const types: string[] = [];
    const sequence: number[] = [];
    let deltas = "";
    for await (const event of stream) {
      types.push(event.type);
      sequence.push(event.sequence_number);
      if (event.type === "response.output_text.delta") deltas += event.delta;
    }
    expect(types.slice(0, 4)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
    ]);
    expect(types.slice(-4)).toEqual([
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(types.filter((type) => type === "response.output_text.delta").length).toBeGreaterThan(1);
    expect(deltas).toBe(text);
    expect(sequence).toEqual(sequence.map((_, index) => index));
  });

  it("reports a length finish as an incomplete response", async () => {
    server.setHandler(() => ({ type: "completion", content: "cut sho", finishReason: "length" }));
    const response = await client().responses.create({ model: "m", input: "go" });
    expect(response.status).toBe("incomplete");
    expect(response.incomplete_details).toEqual({ reason: "max_output_tokens" });
    const stream = await client().responses.create({ model: "m", input: "go", stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types.at(-1)).toBe("response.incomplete");
  });

  it("cuts a truncated stream before the item is done", async () => {
    server.setHandler(() => ({ type: "truncated", content: "Half of an ans" }));
    const text = await streamText("/responses", { model: "m", input: "go", stream: true });
    expect(text).toContain("response.output_text.delta");
    expect(text).not.toContain("response.output_item.done");
    expect(text).not.toContain("response.completed");
  });
});

describe("Anthropic Messages", () => {
  const request = {
    model: "claude-test",
    max_tokens: 100,
    messages: [{ role: "user" as const, content: "read it" }],
  };

  it("answers a signed thinking block, text and a tool_use, streamed as the SDK assembles it", async () => {
    server.setHandler(() => ({
      type: "completion",
      thinking: "First read the file.",
      content: "Reading.",
      toolCalls: [readCall],
      usage: { prompt_tokens: 40, completion_tokens: 9 },
    }));
    const whole = await claude().messages.create(request);
    const streamed = await claude().messages.stream(request).finalMessage();
    for (const message of [whole, streamed]) {
      expect(message.content.map((block) => block.type)).toEqual(["thinking", "text", "tool_use"]);
      const [thinking, , call] = message.content;
      expect(thinking?.type === "thinking" && verifies(thinking.thinking, thinking.signature)).toBe(
        true,
      );
      expect(call).toMatchObject({ id: "call_7", input: { path: "src/module_7.ts" } });
      expect(message.stop_reason).toBe("tool_use");
      expect(message.usage).toMatchObject({ input_tokens: 40, output_tokens: 9 });
    }
    expect(server.requests.map((recorded) => recorded.protocol)).toEqual([
      "anthropic",
      "anthropic",
    ]);
  });

  it("gives content blocks as they are, and errors in Anthropic's shape with its type for the status", async () => {
    const blocks = [
      { type: "redacted_thinking", data: "opaque" },
      { type: "text", text: "Done.", citations: null },
    ];
    server.setHandler(() => ({ type: "completion", blocks }));
    expect((await claude().messages.stream(request).finalMessage()).content).toEqual(blocks);

    server.setHandler(() => ({ type: "error", status: 529, message: "Overloaded" }));
    const error = await claude()
      .messages.create(request)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({
      status: 529,
      error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
    });
  });
});

describe("pace and connections", () => {
  it("marks a request aborted when its client goes away before the answer is whole", async () => {
    server.setHandler(() => ({ type: "completion", content: "x".repeat(400), slowMs: 20 }));
    const controller = new AbortController();
    const stream = await client().chat.completions.create(
      { model: "m", messages: [{ role: "user", content: "go" }], stream: true },
      { signal: controller.signal },
    );
    for await (const _ of stream) {
      controller.abort();
      break;
    }
    server.setHandler(() => ({ type: "completion", content: "whole" }));
    await client().chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "go" }],
    });
    await expect.poll(() => server.requests[0]?.aborted).toBe(true);
    expect(server.requests[1]?.aborted).toBe(false);
  });

  it("stalls a stream after its opening events", async () => {
    server.setHandler(() => ({ type: "completion", content: "never finished", stall: true }));
    const controller = new AbortController();
    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [], stream: true }),
      signal: controller.signal,
    });
    const reader = response.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value)).toContain('"role":"assistant"');
    controller.abort();
    await expect.poll(() => server.requests[0]?.aborted).toBe(true);
  });
});

describe("other paths", () => {
  it("go to the control handler, unrecorded, and get a 404 when it has no answer", async () => {
    const ping = await fetch(`${server.origin}/ping`, {
      method: "POST",
      body: JSON.stringify({ n: 3 }),
    });
    expect(ping.status).toBe(200);
    expect(await ping.json()).toEqual({ pong: 3 });
    const missing = await fetch(`${server.origin}/v1/embeddings`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    expect(controlCalls).toEqual(["POST /ping", "POST /v1/embeddings"]);
    expect(server.requests).toEqual([]);
  });
});
