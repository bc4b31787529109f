/**
 * What the real agents send that the engine does not fully understand,
 * through the gateway: Claude Code's system turns in `messages`, Anthropic
 * server-tool blocks, Codex's custom tool calls (`apply_patch`), Chat
 * Completions custom tool calls and Responses item types the engine does not
 * know. Each is stored opaque in its place, forwarded verbatim and kept with
 * its pair through compaction; Condense refuses none of it.
 */

import { SELF } from "cloudflare:test";
import type Anthropic from "@anthropic-ai/sdk";
import { scenarioHeaders } from "@condense/test-servers";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  anthropicClient,
  freshTag,
  openaiClient,
  queueAnswers,
  upstreamCalls,
} from "../support/gateway-helpers";
import { BASE, call, freshSession, TOKENS, transcript, waitFor } from "../support/helpers";

type AnthropicParam = Anthropic.Messages.MessageParam;

const PATCH = "*** Begin Patch\n*** Update File: src/a.ts\n@@\n-old\n+new\n*** End Patch";

/** The output items of a streamed Responses answer (its `response.completed` event's). */
async function streamedOutput(
  stream: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>,
): Promise<unknown[]> {
  let output: unknown[] = [];
  for await (const event of stream) {
    if (event.type === "response.completed") output = event.response.output;
  }
  return output;
}

describe("Claude Code's system turns", () => {
  it("are forwarded as they came and stored in place, not refused", async () => {
    const tag = freshTag();
    const session = freshSession("gw-opaque");
    // Raw bytes, odd spacing included: before any compaction the body goes upstream unchanged.
    const body = `{"model":"claude-opus-4-6","max_tokens":256,  "system":[{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"Hello."},{"role":"system","content":"The user switched to plan mode."},{"role":"user","content":[{"type":"text","text":"plan it","cache_control":{"type":"ephemeral"}}]}]}`;
    const response = await SELF.fetch(`${BASE}/v1/gateway/anthropic/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": "sk-ant-caller",
        "anthropic-version": "2023-06-01",
        "X-Condense-Key": TOKENS.alice ?? "",
        "X-Condense-Session": session,
        ...scenarioHeaders({ name: tag }),
      },
      body,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("X-Condense-Generation")).toBe("1");
    const [sent] = await upstreamCalls(tag);
    expect(sent?.text).toBe(body);
    await waitFor(async () => (await transcript(session)).length === 6, "the answer");
    const stored = await transcript(session);
    expect(stored.map((entry) => entry.role)).toEqual([
      "system",
      "user",
      "assistant",
      "system",
      "user",
      "assistant",
    ]);
    expect(stored[3]?.message).toEqual({
      role: "system",
      content: "The user switched to plan mode.",
      provider_data: { anthropic: { in_messages: true } },
    });
    // Markers belong to the request: none is stored.
    expect(JSON.stringify(stored)).not.toContain("cache_control");
  });
});

describe("Codex's custom tool calls (Responses)", () => {
  it("stores the streamed answer that holds one, and extends the session with its output", async () => {
    const tag = freshTag();
    const session = freshSession("gw-opaque");
    const client = openaiClient(tag, { session });
    await queueAnswers(tag, [
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_patch", type: "custom", custom: { name: "apply_patch", input: PATCH } },
        ],
      },
    ]);
    const input: unknown[] = [{ role: "user", content: "Fix a.ts." }];
    const tools = [{ type: "custom", name: "apply_patch", description: "Edit files." }];
    const first = await client.responses
      .create({ model: "gpt-5-codex", input: input as never, tools: tools as never, stream: true })
      .withResponse();
    const output = await streamedOutput(first.data);
    expect(output).toMatchObject([{ type: "custom_tool_call", call_id: "call_patch" }]);
    await waitFor(async () => (await transcript(session)).length === 2, "the custom call");
    expect((await transcript(session))[1]?.message.tool_calls).toEqual([
      { id: "call_patch", type: "custom", custom: { name: "apply_patch", input: PATCH } },
    ]);

    input.push(...output, {
      type: "custom_tool_call_output",
      call_id: "call_patch",
      output: "Success. Updated the following files:\nM src/a.ts",
    });
    const second = await client.responses
      .create({ model: "gpt-5-codex", input: input as never, tools: tools as never })
      .withResponse();
    expect(second.response.status).toBe(200);
    expect(second.response.headers.get("X-Condense-Generation")).toBe("1");
    await waitFor(async () => (await transcript(session)).length === 4, "the second answer");
    const stored = await transcript(session);
    expect(stored[2]?.message).toMatchObject({ role: "tool", tool_call_id: "call_patch" });
    const calls = await upstreamCalls(tag);
    expect(calls[1]?.body?.input).toEqual(input);
  });

  it("never splits a custom call from its output when it compacts", async () => {
    const tag = freshTag();
    const session = freshSession("gw-opaque");
    const client = openaiClient(tag, {
      session,
      headers: { "X-Condense-Context-Window": "6000" },
    });
    const input: unknown[] = [{ role: "user", content: "Refactor the parser." }];
    for (let step = 0; step < 24; step++) {
      input.push(
        {
          type: "custom_tool_call",
          id: `ctc_${step}`,
          status: "completed",
          call_id: `call_${step}`,
          name: "apply_patch",
          input: `*** Begin Patch\n*** Update File: src/parser_${step}.ts\n@@\n${"+line\n".repeat(40)}*** End Patch`,
        },
        {
          type: "custom_tool_call_output",
          call_id: `call_${step}`,
          output: `Success. Updated src/parser_${step}.ts\n${"ok ".repeat(200)}`,
        },
      );
    }
    input.push({ role: "user", content: "Now run the tests." });
    const reply = await client.responses
      .create({ model: "gpt-5-codex", input: input as never })
      .withResponse();
    // The test upstream refuses an output without its call, as OpenAI does.
    expect(reply.response.status).toBe(200);
    expect(reply.response.headers.get("X-Condense-Compaction")).not.toBe("none");
    const [sent] = await upstreamCalls(tag);
    const items = (sent?.body?.input ?? []) as Array<Record<string, unknown>>;
    expect(items.length).toBeLessThan(input.length);
    // What is kept of the pairs is kept verbatim, ids and statuses included.
    const kept = items.filter((item) => item.type === "custom_tool_call");
    expect(kept.length).toBeGreaterThan(0);
    for (const item of kept) expect(input).toContainEqual(item);
  });
});

describe("Responses items of types the engine does not know", () => {
  it("are stored opaque in place and forwarded verbatim", async () => {
    const tag = freshTag();
    const session = freshSession("gw-opaque");
    const client = openaiClient(tag, { session });
    const search = {
      type: "web_search_call",
      id: "ws_1",
      status: "completed",
      action: { type: "search", query: "vitest pool workers" },
    };
    const shell = {
      type: "local_shell_call",
      id: "lsh_1",
      call_id: "call_sh",
      status: "completed",
      action: { type: "exec", command: ["ls"], env: {} },
    };
    const input = [
      { role: "user", content: "Look it up, then list the files." },
      search,
      shell,
      { type: "local_shell_call_output", call_id: "call_sh", output: "a.ts\nb.ts" },
    ];
    const reply = await client.responses
      .create({ model: "gpt-5-codex", input: input as never })
      .withResponse();
    expect(reply.response.status).toBe(200);
    const [sent] = await upstreamCalls(tag);
    expect(sent?.body?.input).toEqual(input);
    await waitFor(async () => (await transcript(session)).length === 4, "the answer");
    const stored = await transcript(session);
    // The search stands as an assistant message; the shell call joins it as function calls do.
    expect(stored[1]?.message).toMatchObject({
      role: "assistant",
      content: '[web_search_call] {"action":{"query":"vitest pool workers","type":"search"}}',
      tool_calls: [{ id: "call_sh", type: "custom", custom: { name: "local_shell_call" } }],
      provider_data: { responses: { items: [search, shell] } },
    });
    expect(stored[2]?.message).toMatchObject({ role: "tool", tool_call_id: "call_sh" });
  });
});

describe("Anthropic server-tool blocks", () => {
  it("in a streamed answer are stored opaque, and the next turn extends the session", async () => {
    const tag = freshTag();
    const session = freshSession("gw-opaque");
    const client = anthropicClient(tag, { session });
    const blocks = [
      {
        type: "server_tool_use",
        id: "srvtoolu_01",
        name: "web_search",
        input: { query: "vitest pool workers" },
      },
      {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_01",
        content: [
          {
            type: "web_search_result",
            url: "https://example.com/vitest",
            title: "Vitest",
            encrypted_content: "RW5jcnlwdGVk",
            page_age: null,
          },
        ],
      },
      { type: "text", text: "Vitest runs tests in workerd." },
    ];
    await queueAnswers(tag, [
      { role: "assistant", content: "", provider_data: { anthropic: { blocks } } },
    ]);
    const messages: AnthropicParam[] = [{ role: "user", content: "How do I test a Worker?" }];
    const request = {
      model: "claude-opus-4-6",
      max_tokens: 512,
      tools: [{ type: "web_search_20250305", name: "web_search" }] as never,
      messages,
    };
    const answer = await client.messages.stream(request).finalMessage();
    await waitFor(async () => (await transcript(session)).length === 2, "the answer");
    expect((await transcript(session))[1]?.message.provider_data).toEqual({
      anthropic: { blocks },
    });
    messages.push({ role: "assistant", content: answer.content });
    messages.push({ role: "user", content: "And with Miniflare?" });
    const next = await client.messages.create({ ...request, messages }).withResponse();
    expect(next.response.headers.get("X-Condense-Generation")).toBe("1");
    const calls = await upstreamCalls(tag);
    expect(calls[1]?.body?.messages).toEqual(JSON.parse(JSON.stringify(messages)));
  });
});

describe("Chat Completions custom tool calls", () => {
  it("in a streamed answer are stored, and answered like function calls", async () => {
    const tag = freshTag();
    const session = freshSession("gw-opaque");
    const client = openaiClient(tag, { session });
    await queueAnswers(tag, [
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_p", type: "custom", custom: { name: "apply_patch", input: PATCH } },
        ],
      },
    ]);
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: "user", content: "Fix a.ts." },
    ];
    const stream = await client.chat.completions.create({
      model: "gpt-5",
      messages,
      stream: true,
    });
    for await (const _chunk of stream) {
      // drained
    }
    await waitFor(async () => (await transcript(session)).length === 2, "the custom call");
    const call = { id: "call_p", type: "custom", custom: { name: "apply_patch", input: PATCH } };
    expect((await transcript(session))[1]?.message.tool_calls).toEqual([call]);
    messages.push(
      { role: "assistant", content: null, tool_calls: [call as never] },
      { role: "tool", tool_call_id: "call_p", content: "Done." },
    );
    const next = await client.chat.completions.create({ model: "gpt-5", messages }).withResponse();
    expect(next.response.headers.get("X-Condense-Generation")).toBe("1");
  });
});

describe("a history the engine cannot read", () => {
  it("is forwarded unchanged for the provider to judge, and nothing is stored", async () => {
    const tag = freshTag();
    const session = freshSession("gw-opaque");
    const body = JSON.stringify({
      model: "claude-opus-4-6",
      max_tokens: 64,
      // A tool_use in a user turn: the engine cannot read it, and Anthropic refuses it.
      messages: [{ role: "user", content: [{ type: "tool_use", id: "a", name: "f", input: {} }] }],
    });
    const response = await SELF.fetch(`${BASE}/v1/gateway/anthropic/v1/messages`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-api-key": "sk-ant-caller",
        "X-Condense-Key": TOKENS.alice ?? "",
        "X-Condense-Session": session,
        ...scenarioHeaders({ name: tag }),
      },
      body,
    });
    expect(response.headers.get("X-Condense-Passthrough")).toBe("unreadable");
    // The provider's own refusal, passed through.
    expect(response.status).toBe(400);
    expect(((await response.json()) as { type: string }).type).toBe("error");
    expect((await upstreamCalls(tag))[0]?.text).toBe(body);
    expect((await call("GET", `/v1/sessions/${session}`)).status).toBe(404);
  });
});
