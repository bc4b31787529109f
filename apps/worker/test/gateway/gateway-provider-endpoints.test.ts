/**
 * The providers' endpoints beside their model requests, through the gateway
 * with the real SDKs: Anthropic's `count_tokens` and Gemini's `:countTokens`
 * answer for the context the gateway would send (the session's compacted
 * context with the request's new messages), by the upstream's count or, on an
 * upstream without one (`bare`), the engine's; OpenAI's `/responses/compact`
 * goes to the upstream, or is answered with the engine's compaction as a
 * `compaction` item that a later request carries back. And the providers'
 * own compaction features in requests pass through opaque and in order:
 * Anthropic's `context_management` edits and `compaction` blocks, OpenAI's
 * `context_management`, `compaction_trigger` and `compaction` items.
 */

import { SELF } from "cloudflare:test";
import Anthropic from "@anthropic-ai/sdk";
import { type ScenarioFields, scenarioHeaders } from "@condense/test-servers";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { CONDENSE_COMPACTION_PREFIX } from "../../src/gateway/protocols/condense-compaction";
import { anthropicClient, freshTag, openaiClient, upstreamCalls } from "../support/gateway-helpers";
import { BASE, freshSession, TOKENS, transcript, waitFor } from "../support/helpers";

type AnthropicParam = Anthropic.Messages.MessageParam;
type InputItem = OpenAI.Responses.ResponseInputItem;

const MODEL = "claude-opus-4-6";
const SYSTEM = "You are a careful coding agent.";

/** An agent's history of `steps` file reads, each answered with a long output, ending on a result. */
function readsHistory(steps: number): AnthropicParam[] {
  const messages: AnthropicParam[] = [
    { role: "user", content: "Fix the failing build and keep notes." },
  ];
  for (let step = 0; step < steps; step++) {
    messages.push(
      {
        role: "assistant",
        content: [
          { type: "text", text: `Reading file ${step}.` },
          {
            type: "tool_use",
            id: `toolu_${step}`,
            name: "read_file",
            input: { path: `src/${step}.ts` },
          },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: `toolu_${step}`,
            content: `// src/${step}.ts\n${`export const value${step} = compute(${step});\n`.repeat(60)}`,
          },
        ],
      },
    );
  }
  return messages;
}

/** Responses input of `steps` function calls, each with a long output. */
function responsesHistory(steps: number): InputItem[] {
  const input: InputItem[] = [{ role: "user", content: "Fix the failing build and keep notes." }];
  for (let step = 0; step < steps; step++) {
    input.push(
      {
        type: "function_call",
        call_id: `call_${step}`,
        name: "read_file",
        arguments: JSON.stringify({ path: `src/${step}.ts` }),
      },
      {
        type: "function_call_output",
        call_id: `call_${step}`,
        output: `// src/${step}.ts\n${`export const value${step} = compute(${step});\n`.repeat(60)}`,
      },
    );
  }
  input.push({ role: "user", content: "Now run the tests." });
  return input;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("Anthropic count_tokens through the gateway", () => {
  it("counts the session's compacted context with the request's new messages, as the next turn sends it", async () => {
    const tag = freshTag();
    const session = freshSession("gw-count");
    const client = anthropicClient(tag, {
      session,
      headers: { "X-Condense-Context-Window": "16000" },
    });
    const history = readsHistory(30);
    const turn = await client.messages
      .create({ model: MODEL, max_tokens: 256, system: SYSTEM, messages: history })
      .withResponse();
    expect(turn.response.headers.get("X-Condense-Compaction")).not.toBe("none");
    history.push(
      { role: "assistant", content: turn.data.content },
      { role: "user", content: "Now run the tests." },
    );
    await waitFor(async () => (await transcript(session)).length === 63, "the answer stored");

    const counted = await client.messages
      .countTokens({ model: MODEL, system: SYSTEM, messages: history })
      .withResponse();
    expect(counted.response.headers.get("X-Condense-Session")).toBe(session);
    expect(counted.response.headers.get("X-Condense-Answered-By")).toBe("upstream");
    // The whole history, counted by the same upstream without a session.
    const raw = await anthropicClient(tag, {
      headers: { "X-Condense-Session": "none" },
    }).messages.countTokens({ model: MODEL, system: SYSTEM, messages: history });
    expect(counted.data.input_tokens).toBeGreaterThan(0);
    expect(counted.data.input_tokens).toBeLessThan(raw.input_tokens / 2);
    // Nothing was stored by the count.
    expect(await transcript(session)).toHaveLength(63);

    // What was counted is what the next turn sends.
    await client.messages.create({
      model: MODEL,
      max_tokens: 256,
      system: SYSTEM,
      messages: history,
    });
    const calls = await upstreamCalls(tag);
    const [count, , next] = calls.slice(1);
    expect(count?.path).toBe("/v1/messages/count_tokens");
    expect(next?.path).toBe("/v1/messages");
    expect(count?.body?.messages).toEqual(next?.body?.messages);
    expect(count?.body?.system).toEqual(next?.body?.system);
    expect(count?.body?.messages).not.toEqual(history);
    expect(count?.tokens).toBe(counted.data.input_tokens);
  });

  it("answers with the engine's count, in Anthropic's shape, where the upstream has no count_tokens", async () => {
    const tag = freshTag();
    const client = anthropicClient(tag, {
      scenario: { bare: true },
      headers: { "X-Condense-Session": "none" },
    });
    const messages = readsHistory(3);
    const tools: Anthropic.Messages.Tool[] = [
      { name: "read_file", description: "Reads a file", input_schema: { type: "object" } },
    ];
    const bare = await client.messages
      .countTokens({ model: MODEL, system: SYSTEM, messages, tools })
      .withResponse();
    expect(bare.response.headers.get("X-Condense-Answered-By")).toBe("gateway");
    expect(bare.data.input_tokens).toBe(Number(bare.response.headers.get("X-Condense-Tokens")));
    // The engine counts what the upstream would: the same figure as the test upstream's count.
    const upstream = await anthropicClient(tag, {
      headers: { "X-Condense-Session": "none" },
    }).messages.countTokens({ model: MODEL, system: SYSTEM, messages, tools });
    expect(bare.data.input_tokens).toBe(upstream.input_tokens);
  });

  it("refuses bad input in Anthropic's shape, with the gateway's stable code", async () => {
    const client = anthropicClient(freshTag(), { scenario: { bare: true } });
    const missing = await rejection(client.messages.countTokens({ model: MODEL, messages: [] }));
    expect(missing).toBeInstanceOf(Anthropic.BadRequestError);
    expect((missing as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", code: "invalid_request" },
    });
    // A history the engine cannot read and an upstream that cannot count it: the engine says why.
    const unreadable = await rejection(
      client.messages.countTokens({
        model: MODEL,
        messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: 7 } as never] }],
      }),
    );
    expect(unreadable).toBeInstanceOf(Anthropic.BadRequestError);
    expect((unreadable as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", code: "invalid_messages" },
    });
  });
});

type Content = { role: string; parts: Array<Record<string, unknown>> };

/** A Gemini request to the gateway, as Gemini CLI makes it. */
function gemini(
  method: string,
  body: unknown,
  options: { tag: string; session?: string; scenario?: ScenarioFields; window?: string },
): Promise<Response> {
  return SELF.fetch(`${BASE}/v1/gateway/up/v1beta/models/gemini-2.5-pro:${method}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-goog-api-key": "gm-callers-own",
      "X-Condense-Key": TOKENS.alice ?? "",
      "X-Condense-Session": options.session ?? "none",
      ...scenarioHeaders({ ...options.scenario, name: options.tag }),
      ...(options.window !== undefined ? { "X-Condense-Context-Window": options.window } : {}),
    },
    body: JSON.stringify(body),
  });
}

describe("Gemini countTokens through the gateway", () => {
  it("counts the session's compacted context, with its system instruction in generateContentRequest", async () => {
    const tag = freshTag();
    const session = freshSession("gw-gemini-count");
    const systemInstruction = { parts: [{ text: SYSTEM }] };
    const contents: Content[] = [];
    for (let step = 0; step < 30; step++) {
      contents.push(
        {
          role: "user",
          parts: [
            { text: `Notes ${step}:\n${`the value ${step} is computed twice.\n`.repeat(60)}` },
          ],
        },
        { role: "model", parts: [{ text: `Noted ${step}.` }] },
      );
    }
    contents.push({ role: "user", parts: [{ text: "Summarize the notes." }] });
    const turn = await gemini(
      "generateContent",
      { systemInstruction, contents },
      { tag, session, window: "16000" },
    );
    expect(turn.status).toBe(200);
    expect(turn.headers.get("X-Condense-Compaction")).not.toBe("none");
    const counted = await gemini(
      "countTokens",
      { systemInstruction, contents },
      { tag, session, window: "16000" },
    );
    expect(counted.headers.get("X-Condense-Answered-By")).toBe("upstream");
    expect(counted.headers.get("X-Condense-Session")).toBe(session);
    const { totalTokens } = (await counted.json()) as { totalTokens: number };
    const raw = await gemini("countTokens", { systemInstruction, contents }, { tag });
    expect(totalTokens).toBeLessThan(((await raw.json()) as { totalTokens: number }).totalTokens);
    // Gemini's countTokens takes a system instruction only inside generateContentRequest.
    const sent = (await upstreamCalls(tag)).filter((call) => call.path.endsWith(":countTokens"));
    const request = sent[0]?.body?.generateContentRequest as Record<string, unknown> | undefined;
    expect(request?.model).toBe("models/gemini-2.5-pro");
    expect(request?.systemInstruction).toEqual(systemInstruction);
    expect(Array.isArray(request?.contents) ? request.contents.length : 0).toBeGreaterThan(0);
    expect((request?.contents as unknown[] | undefined)?.length).toBeLessThan(contents.length);
    expect(sent[0]?.body?.contents).toBeUndefined();
  });

  it("answers with the engine's count where the upstream has none", async () => {
    const contents = [{ role: "user", parts: [{ text: "count me please" }] }];
    const counted = await gemini(
      "countTokens",
      { contents },
      { tag: freshTag(), scenario: { bare: true } },
    );
    expect(counted.status).toBe(200);
    expect(counted.headers.get("X-Condense-Answered-By")).toBe("gateway");
    expect(await counted.json()).toEqual({
      totalTokens: Number(counted.headers.get("X-Condense-Tokens")),
    });
  });
});

describe("OpenAI /responses/compact through the gateway", () => {
  it("forwards to an upstream that has it and passes its compaction back", async () => {
    const tag = freshTag();
    const session = freshSession("gw-compact-upstream");
    const input = responsesHistory(2);
    const compacted = await openaiClient(tag, { session })
      .responses.compact({ model: "gpt-5", input })
      .withResponse();
    expect(compacted.response.headers.get("X-Condense-Answered-By")).toBe("upstream");
    expect(compacted.data.object).toBe("response.compaction");
    expect(compacted.data.output.at(-1)).toMatchObject({
      type: "compaction",
      encrypted_content: expect.stringMatching(/^gAAAA-encrypted-/),
    });
    expect(compacted.response.headers.get("X-Condense-Session")).toBe(session);
    const [sent] = await upstreamCalls(tag);
    expect(sent?.path).toBe("/v1/responses/compact");
    expect(sent?.body?.input).toEqual(input);
  });

  it("answers with the engine's compaction where the upstream has none, and takes its item back", async () => {
    const tag = freshTag();
    const session = freshSession("gw-compact");
    const client = openaiClient(tag, { session, scenario: { bare: true } });
    const input = responsesHistory(30);
    const compacted = await client.responses.compact({ model: "gpt-5", input }).withResponse();
    expect(compacted.response.headers.get("X-Condense-Answered-By")).toBe("gateway");
    const { data } = compacted;
    expect(data.object).toBe("response.compaction");
    expect(data.id).toMatch(/^resp_compact_/);
    // OpenAI's documented shape: every user message, then one compaction item.
    const users = input.filter((item) => "role" in item && item.role === "user");
    expect(data.output.slice(0, -1)).toEqual(users);
    const item = data.output.at(-1);
    expect(item).toMatchObject({ type: "compaction", id: expect.stringMatching(/^cmp_/) });
    expect(
      (item as { encrypted_content: string }).encrypted_content.startsWith(
        CONDENSE_COMPACTION_PREFIX,
      ),
    ).toBe(true);
    expect(data.usage.output_tokens).toBeLessThan(data.usage.input_tokens);

    // The agent goes on from the compacted window: the upstream never sees the gateway's item.
    const next = [...(data.output as InputItem[]), { role: "user" as const, content: "Go on." }];
    const answer = await client.responses.create({ model: "gpt-5", input: next }).withResponse();
    expect(answer.response.status).toBe(200);
    const calls = await upstreamCalls(tag);
    const sent = calls.at(-1)?.body?.input as Array<{ type?: string }>;
    expect(sent.some((entry) => entry.type === "compaction")).toBe(false);
    expect(sent.length).toBeGreaterThan(users.length);
    expect(sent.length).toBeLessThan(input.length);
  });
});

describe("what the gateway cannot answer for", () => {
  it("refuses a compaction of a history kept on the provider's side, where the upstream has no endpoint", async () => {
    const client = openaiClient(freshTag(), { scenario: { bare: true } });
    const refused = await rejection(
      client.responses.compact({ model: "gpt-5", previous_response_id: "resp_1" }),
    );
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).code).toBe("history_on_provider");
  });
});

describe("the providers' own compaction features in requests", () => {
  it("passes Anthropic's context_management edits and compaction blocks through, opaque and in order", async () => {
    const tag = freshTag();
    const session = freshSession("gw-context-management");
    const client = anthropicClient(tag, { session });
    const contextManagement = {
      edits: [
        {
          type: "clear_tool_uses_20250919" as const,
          keep: { type: "tool_uses" as const, value: 3 },
        },
        { type: "clear_thinking_20251015" as const },
        { type: "compact_20260112" as const, instructions: "Keep the file names." },
      ],
    };
    const history: Anthropic.Beta.Messages.BetaMessageParam[] = [
      { role: "user", content: "Fix the failing build." },
      {
        role: "assistant",
        content: [
          { type: "compaction", content: "Summary: the build fails in src/a.ts." },
          { type: "text", text: "Continuing from the summary." },
        ],
      },
      { role: "user", content: "Go on." },
    ];
    const betas = ["context-management-2025-06-27", "compact-2026-01-12"];
    const first = await client.beta.messages.create({
      model: MODEL,
      max_tokens: 256,
      system: SYSTEM,
      messages: history,
      context_management: contextManagement,
      betas,
    });
    history.push(
      {
        role: "assistant",
        content: first.content as Anthropic.Beta.Messages.BetaContentBlockParam[],
      },
      { role: "user", content: "And the tests?" },
    );
    await client.beta.messages.create({
      model: MODEL,
      max_tokens: 256,
      system: SYSTEM,
      messages: history,
      context_management: contextManagement,
      betas,
    });
    const calls = await upstreamCalls(tag);
    expect(calls).toHaveLength(2);
    for (const [index, sent] of calls.entries()) {
      expect(sent.body?.context_management).toEqual(contextManagement);
      expect(sent.headers["anthropic-beta"]).toBe(betas.join(","));
      expect(sent.body?.messages).toEqual(history.slice(0, index === 0 ? 3 : 5));
    }
  });

  it("passes OpenAI's context_management, compaction_trigger and compaction items through, in order", async () => {
    const tag = freshTag();
    const session = freshSession("gw-openai-compaction");
    const client = openaiClient(tag, { session });
    const input: InputItem[] = [
      { role: "user", content: "Fix the failing build." },
      { type: "compaction", id: "cmp_1", encrypted_content: "gAAAA-from-openai" },
      { role: "user", content: "Go on." },
      { type: "compaction_trigger" },
    ];
    const body = {
      model: "gpt-5",
      input,
      context_management: [{ type: "compaction" as const, compact_threshold: 200_000 }],
    };
    const answer = await client.responses.create(body).withResponse();
    expect(answer.response.status).toBe(200);
    const [sent] = await upstreamCalls(tag);
    expect(sent?.body?.input).toEqual(input);
    expect(sent?.body?.context_management).toEqual(body.context_management);
  });
});
