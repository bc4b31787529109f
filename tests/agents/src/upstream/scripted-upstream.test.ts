/**
 * The scripted upstream as the official SDKs see it: its streams are parsed by
 * `@anthropic-ai/sdk` and `openai` into the answer the model gave (thinking,
 * text, tool calls with their arguments, a custom tool call's input, usage),
 * and its refusals raise the SDKs' own error classes with the provider's words.
 */

import Anthropic from "@anthropic-ai/sdk";
import { scenarioBaseUrl } from "@condense/test-servers";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ModelAnswer } from "../model/model-turn.ts";
import type { ScriptedModel } from "../model/scripted-model.ts";
import { anthropicMessages } from "./anthropic-messages.ts";
import { chatCompletions } from "./chat-completions.ts";
import { openaiResponses } from "./openai-responses.ts";
import { type ScriptedUpstream, startScriptedUpstream } from "./scripted-upstream.ts";

const KEY = "sk-test";

function fixedModel(answer: ModelAnswer): ScriptedModel {
  return {
    answer: (request) => (request.reasoning ? { thinking: "Plan.", ...answer } : answer),
    isSide: () => false,
    failures: [],
    answered: [],
    finished: () => false,
  };
}

const call: ModelAnswer = {
  text: "Reading.",
  call: { kind: "function", id: "e2e_step_01", name: "read", input: { path: "notes/a.md" } },
};

let upstream: ScriptedUpstream;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  upstream.register({
    scenario: { name: "a", limit: 2_000 },
    protocol: anthropicMessages,
    model: fixedModel(call),
    key: KEY,
  });
  upstream.register({
    scenario: { name: "r", limit: 2_000 },
    protocol: openaiResponses,
    model: fixedModel({
      call: {
        kind: "custom",
        id: "e2e_step_02",
        name: "apply_patch",
        input: "*** Begin Patch\n*** End Patch",
      },
    }),
    key: KEY,
  });
  upstream.register({
    scenario: { name: "c", limit: 2_000 },
    protocol: chatCompletions,
    model: fixedModel(call),
    key: KEY,
  });
});

afterAll(async () => {
  await upstream.close();
});

describe("Anthropic Messages", () => {
  const client = (key = KEY) =>
    new Anthropic({
      baseURL: scenarioBaseUrl(upstream.origin, { name: "a" }),
      apiKey: key,
      maxRetries: 0,
    });

  it("streams a signed thinking block, text and a tool_use the SDK assembles", async () => {
    const message = await client()
      .messages.stream({
        model: "claude-test",
        max_tokens: 100,
        thinking: { type: "enabled", budget_tokens: 50 },
        messages: [{ role: "user", content: "go" }],
        tools: [{ name: "read", input_schema: { type: "object" } }],
      })
      .finalMessage();
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "text", "tool_use"]);
    expect(message.content[2]).toMatchObject({
      id: "toolu_e2e_step_01",
      input: { path: "notes/a.md" },
    });
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage.input_tokens).toBeGreaterThan(0);
  });

  it("refuses an overflow and a wrong key with Anthropic's errors", async () => {
    const long = "word ".repeat(3_000);
    await expect(
      client().messages.create({
        model: "m",
        max_tokens: 10,
        messages: [{ role: "user", content: long }],
      }),
    ).rejects.toThrow(/prompt is too long: \d+ tokens > 2000 maximum/);
    await expect(
      client("wrong").messages.create({
        model: "m",
        max_tokens: 10,
        messages: [{ role: "user", content: "x" }],
      }),
    ).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
  });
});

describe("OpenAI Responses", () => {
  const client = () =>
    new OpenAI({
      baseURL: scenarioBaseUrl(upstream.origin, { name: "r" }),
      apiKey: KEY,
      maxRetries: 0,
    });

  it("streams a sealed reasoning item and a custom tool call the SDK assembles", async () => {
    const response = await client()
      .responses.stream({
        model: "gpt-test",
        input: "go",
        reasoning: { effort: "low" },
        include: ["reasoning.encrypted_content"],
        store: false,
        tools: [{ type: "custom", name: "apply_patch" }],
      })
      .finalResponse();
    expect(response.output.map((item) => item.type)).toEqual(["reasoning", "custom_tool_call"]);
    expect(response.output[1]).toMatchObject({
      call_id: "call_e2e_step_02",
      input: "*** Begin Patch\n*** End Patch",
    });
  });

  it("refuses an output without its call, in OpenAI's words", async () => {
    await expect(
      client().responses.create({
        model: "gpt-test",
        input: [{ type: "function_call_output", call_id: "call_x", output: "ok" }],
      }),
    ).rejects.toThrow("No tool call found for function call output with call_id call_x.");
  });
});

describe("Chat Completions", () => {
  const client = () =>
    new OpenAI({
      baseURL: scenarioBaseUrl(upstream.origin, { name: "c" }),
      apiKey: KEY,
      maxRetries: 0,
    });

  it("streams text and a tool call with usage that the SDK assembles", async () => {
    const completion = await client()
      .chat.completions.stream({
        model: "gpt-test",
        messages: [{ role: "user", content: "go" }],
        tools: [{ type: "function", function: { name: "read", parameters: { type: "object" } } }],
        stream_options: { include_usage: true },
      })
      .finalChatCompletion();
    const message = completion.choices[0]?.message;
    expect(message?.content).toBe("Reading.");
    expect(message?.tool_calls?.[0]).toMatchObject({
      id: "call_e2e_step_01",
      function: { name: "read", arguments: '{"path":"notes/a.md"}' },
    });
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
  });

  it("refuses an overflow with OpenAI's context_length_exceeded", async () => {
    const long = "word ".repeat(3_000);
    await expect(
      client().chat.completions.create({
        model: "gpt-test",
        messages: [{ role: "user", content: long }],
      }),
    ).rejects.toMatchObject({ status: 400, code: "context_length_exceeded" });
  });
});
