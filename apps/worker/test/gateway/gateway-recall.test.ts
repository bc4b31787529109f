/**
 * The gateway's recall rounds with the official SDKs against the test
 * upstream: a session whose setting `recall` is on gets the recall tool, the
 * upstream (scripted to call it) is answered inside the gateway, and the
 * client and the session see only the final answer.
 */

import type Anthropic from "@anthropic-ai/sdk";
import { RECALL_FENCE_CLOSE, RECALL_FENCE_OPEN } from "@condense/core";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  anthropicClient,
  freshTag,
  openaiClient,
  queueAnswers,
  upstreamCalls,
} from "../support/gateway-helpers";
import type { RecordedCall } from "../support/gateway-upstream";
import { call, freshSession, transcript, waitFor } from "../support/helpers";

const OUTPUT = "FAIL src/users.test.ts: expected 3 rows, got 2 (fixture ZX-4471)";
const QUESTION = "Which fixture failed?";
const FINAL = "The failing fixture was ZX-4471.";

/** Turns the session's setting `recall` on through the settings route. */
async function recallOn(session: string): Promise<void> {
  const patched = await call("PATCH", `/v1/sessions/${session}`, { body: { recall: true } });
  expect(patched.status).toBe(200);
}

/** A canonical assistant message calling recall, as the test upstream's queue takes it. */
function recallCall(id: string, args: Record<string, unknown>) {
  return { id, type: "function", function: { name: "recall", arguments: JSON.stringify(args) } };
}

/** An answer calling recall twice, with ids of round `round` (ids are unique in a history). */
function recalling(round = 1) {
  return {
    role: "assistant",
    content: null,
    tool_calls: [
      recallCall(`rc_${round}_1`, { toolCallId: "call_test" }),
      recallCall(`rc_${round}_2`, { query: "ZX-4471" }),
    ],
  };
}

function toolNames(call: RecordedCall | undefined): string[] {
  const tools = Array.isArray(call?.body?.tools) ? (call.body.tools as unknown[]) : [];
  return tools.map((tool) => {
    const entry = tool as { name?: string; function?: { name?: string } };
    return entry.name ?? entry.function?.name ?? "";
  });
}

/** Where the tool results of a recorded request are, whatever its protocol. */
function resultTexts(call: RecordedCall | undefined): string[] {
  const body = call?.body ?? {};
  const items = (Array.isArray(body.messages) ? body.messages : body.input) as Array<
    Record<string, unknown>
  >;
  return items.flatMap((item) => {
    if (item.role === "tool") return [String(item.content)];
    if (item.type === "function_call_output") return [String(item.output)];
    if (Array.isArray(item.content)) {
      return (item.content as Array<Record<string, unknown>>)
        .filter((block) => block.type === "tool_result")
        .map((block) => String(block.content));
    }
    return [];
  });
}

/** What every protocol's second upstream request must carry: both recall answers, as data. */
function expectRecallResults(call: RecordedCall | undefined): void {
  const texts = resultTexts(call);
  const output = texts.find((text) => text.includes("complete output of tool call call_test"));
  expect(output).toContain(`${RECALL_FENCE_OPEN}\n${OUTPUT}\n${RECALL_FENCE_CLOSE}`);
  // The query answered from the session's full-text search: the tool output that holds the fixture id.
  const found = texts.find((text) => /^recall: \d+ match(es)? for "ZX-4471"/.test(text));
  expect(found).toContain("call_test");
  expect(found).toMatch(/«ZX»-«4471»|«ZX-4471»/);
}

describe("recall through the gateway: Chat Completions", () => {
  const history: OpenAI.Chat.ChatCompletionMessageParam[] = [
    { role: "user", content: "Run the tests." },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_test", type: "function", function: { name: "run_tests", arguments: "{}" } },
      ],
    },
    { role: "tool", tool_call_id: "call_test", content: OUTPUT },
  ];

  /** A session with the tool output stored, recall on, and the client's next history. */
  async function setUp(tag: string, session: string, recall = true) {
    const client = openaiClient(tag, { session });
    const first = await client.chat.completions.create({ model: "gpt-4o", messages: history });
    await waitFor(async () => (await transcript(session)).length === 4, "the first answer");
    if (recall) await recallOn(session);
    const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
      ...history,
      { role: "assistant", content: first.choices[0]?.message.content ?? "" },
      { role: "user", content: QUESTION },
    ];
    return { client, messages };
  }

  it("answers the recall calls inside the gateway and gives the client only the final answer", async () => {
    const tag = freshTag();
    const session = freshSession("gw-recall");
    const { client, messages } = await setUp(tag, session);
    await queueAnswers(tag, [recalling(), { role: "assistant", content: FINAL }]);
    const { data, response } = await client.chat.completions
      .create({ model: "gpt-4o", messages })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe(FINAL);
    expect(data.choices[0]?.message.tool_calls).toBeUndefined();
    expect(response.headers.get("X-Condense-Recall-Rounds")).toBe("1");

    const calls = (await upstreamCalls(tag)).slice(1);
    expect(calls).toHaveLength(2);
    expect(toolNames(calls[0])).toEqual(["recall"]);
    expect(calls[0]?.body?.tool_choice).toBeUndefined();
    expectRecallResults(calls[1]);
    // The tokens the client is told of are those of the context the session served (the first round).
    expect(Number(response.headers.get("X-Condense-Tokens"))).toBeLessThan(calls[1]?.tokens ?? 0);

    // The session holds what the client sees, so the client's next history still extends it.
    await waitFor(async () => (await transcript(session)).length === 6, "the final answer");
    const stored = await transcript(session);
    expect(stored.map((entry) => entry.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(stored[5]?.message.content).toBe(FINAL);
    const next = await client.chat.completions
      .create({
        model: "gpt-4o",
        messages: [
          ...messages,
          { role: "assistant", content: FINAL },
          { role: "user", content: "Thanks." },
        ],
      })
      .withResponse();
    expect(next.response.headers.get("X-Condense-Generation")).toBe("1");
  });

  it("stops after three rounds, the last asking for an answer without tool calls", async () => {
    const tag = freshTag();
    const session = freshSession("gw-recall");
    const { client, messages } = await setUp(tag, session);
    await queueAnswers(tag, [
      recalling(1),
      recalling(2),
      recalling(3),
      { role: "assistant", content: FINAL },
    ]);
    const { data, response } = await client.chat.completions
      .create({ model: "gpt-4o", messages })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe(FINAL);
    expect(response.headers.get("X-Condense-Recall-Rounds")).toBe("3");
    const calls = (await upstreamCalls(tag)).slice(1);
    expect(calls.map((call) => call.body?.tool_choice)).toEqual([
      undefined,
      undefined,
      undefined,
      "none",
    ]);
    expect(toolNames(calls[3])).toEqual(["recall"]);
  });

  it("leaves a request that declares its own recall tool alone", async () => {
    const tag = freshTag();
    const session = freshSession("gw-recall");
    const { client, messages } = await setUp(tag, session);
    await queueAnswers(tag, [recalling()]);
    const own: OpenAI.Chat.ChatCompletionTool = {
      type: "function",
      function: { name: "recall", description: "The agent's own.", parameters: { type: "object" } },
    };
    const { data, response } = await client.chat.completions
      .create({ model: "gpt-4o", messages, tools: [own] })
      .withResponse();
    expect(data.choices[0]?.message.tool_calls?.map((call) => call.id)).toEqual([
      "rc_1_1",
      "rc_1_2",
    ]);
    expect(response.headers.get("X-Condense-Recall-Rounds")).toBeNull();
    const calls = (await upstreamCalls(tag)).slice(1);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body?.tools).toEqual([own]);
  });

  it("adds no tool when the session's recall is off", async () => {
    const tag = freshTag();
    const { client, messages } = await setUp(tag, freshSession("gw-recall"), false);
    const { response } = await client.chat.completions
      .create({ model: "gpt-4o", messages })
      .withResponse();
    const calls = (await upstreamCalls(tag)).slice(1);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.body?.tools).toBeUndefined();
    expect(response.headers.get("X-Condense-Recall-Rounds")).toBeNull();
  });

  it("holds a stream until its answer calls no recall, then relays only that one", async () => {
    const tag = freshTag();
    const session = freshSession("gw-recall");
    const { client, messages } = await setUp(tag, session);
    await queueAnswers(tag, [recalling(), { role: "assistant", content: FINAL }]);
    const { data: stream, response } = await client.chat.completions
      .create({ model: "gpt-4o", messages, stream: true })
      .withResponse();
    let text = "";
    let toolCalls = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      toolCalls += chunk.choices[0]?.delta.tool_calls?.length ?? 0;
    }
    expect(text).toBe(FINAL);
    expect(toolCalls).toBe(0);
    expect(response.headers.get("X-Condense-Recall-Rounds")).toBe("1");
    const calls = (await upstreamCalls(tag)).slice(1);
    expect(calls.map((call) => call.body?.stream)).toEqual([true, true]);
    expect(toolNames(calls[0])).toEqual(["recall"]);
    expectRecallResults(calls[1]);
    await waitFor(async () => (await transcript(session)).length === 6, "the streamed answer");
    expect((await transcript(session))[5]?.message.content).toBe(FINAL);
  });
});

describe("recall through the gateway: Responses", () => {
  it("answers the recall calls inside the gateway and gives the client only the final answer", async () => {
    const tag = freshTag();
    const session = freshSession("gw-recall");
    const client = openaiClient(tag, { session });
    const input: OpenAI.Responses.ResponseInputItem[] = [
      { role: "user", content: "Run the tests." },
      { type: "function_call", call_id: "call_test", name: "run_tests", arguments: "{}" },
      { type: "function_call_output", call_id: "call_test", output: OUTPUT },
    ];
    const first = await client.responses.create({ model: "gpt-4o", input });
    await waitFor(async () => (await transcript(session)).length === 4, "the first answer");
    await recallOn(session);
    await queueAnswers(tag, [recalling(), { role: "assistant", content: FINAL }]);
    const { data, response } = await client.responses
      .create({
        model: "gpt-4o",
        input: [
          ...input,
          ...(first.output as OpenAI.Responses.ResponseInputItem[]),
          { role: "user", content: QUESTION },
        ],
      })
      .withResponse();
    expect(data.output_text).toBe(FINAL);
    expect(data.output.map((item) => item.type)).toEqual(["message"]);
    expect(response.headers.get("X-Condense-Recall-Rounds")).toBe("1");
    const calls = (await upstreamCalls(tag)).slice(1);
    expect(calls).toHaveLength(2);
    expect(toolNames(calls[0])).toEqual(["recall"]);
    expectRecallResults(calls[1]);
    await waitFor(async () => (await transcript(session)).length === 6, "the final answer");
    expect((await transcript(session)).map((entry) => entry.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
  });
});

describe("recall through the gateway: Anthropic Messages", () => {
  it("answers the recall calls inside the gateway and gives the client only the final answer", async () => {
    const tag = freshTag();
    const session = freshSession("gw-recall");
    const client = anthropicClient(tag, { session });
    const messages: Anthropic.Messages.MessageParam[] = [
      { role: "user", content: "Run the tests." },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "call_test", name: "run_tests", input: {} }],
      },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "call_test", content: OUTPUT }],
      },
    ];
    const first = await client.messages.create({
      model: "claude-sonnet-5-5",
      max_tokens: 512,
      messages,
    });
    await waitFor(async () => (await transcript(session)).length === 4, "the first answer");
    await recallOn(session);
    await queueAnswers(tag, [
      recalling(1),
      recalling(2),
      recalling(3),
      { role: "assistant", content: FINAL },
    ]);
    const { data, response } = await client.messages
      .create({
        model: "claude-sonnet-5-5",
        max_tokens: 512,
        messages: [
          ...messages,
          { role: "assistant", content: first.content },
          { role: "user", content: QUESTION },
        ],
      })
      .withResponse();
    expect(data.content).toEqual([{ type: "text", text: FINAL }]);
    expect(response.headers.get("X-Condense-Recall-Rounds")).toBe("3");
    const calls = (await upstreamCalls(tag)).slice(1);
    expect(calls).toHaveLength(4);
    expect(toolNames(calls[0])).toEqual(["recall"]);
    expectRecallResults(calls[1]);
    // The last round keeps the tool declared (the history has tool_use blocks) and forbids its use.
    expect(calls.map((call) => call.body?.tool_choice)).toEqual([
      undefined,
      undefined,
      undefined,
      { type: "none" },
    ]);
    expect(toolNames(calls[3])).toEqual(["recall"]);
    await waitFor(async () => (await transcript(session)).length === 6, "the final answer");
    const stored = await transcript(session);
    expect(stored[5]?.message.content).toEqual([{ type: "text", text: FINAL }]);
  });

  it("holds a stream until its answer calls no recall, then relays only that one", async () => {
    const tag = freshTag();
    const session = freshSession("gw-recall");
    const client = anthropicClient(tag, { session });
    const messages: Anthropic.Messages.MessageParam[] = [{ role: "user", content: "Start." }];
    const first = await client.messages.create({
      model: "claude-sonnet-5-5",
      max_tokens: 512,
      messages,
    });
    await waitFor(async () => (await transcript(session)).length === 2, "the first answer");
    await recallOn(session);
    await queueAnswers(tag, [recalling(), { role: "assistant", content: FINAL }]);
    const stream = client.messages.stream({
      model: "claude-sonnet-5-5",
      max_tokens: 512,
      messages: [
        ...messages,
        { role: "assistant", content: first.content },
        { role: "user", content: QUESTION },
      ],
    });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: "text", text: FINAL }]);
    const calls = (await upstreamCalls(tag)).slice(1);
    expect(calls).toHaveLength(2);
    expect(calls[1]?.body?.stream).toBe(true);
    // No output recorded under call_test in this session: the model is told so, as data.
    expect(resultTexts(calls[1])[0]).toMatch(/^recall failed: /);
  });
});
