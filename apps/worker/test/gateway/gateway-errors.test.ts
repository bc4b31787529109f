/**
 * The gateway's errors, as the official SDKs see them: its own in each
 * protocol's shape (so the SDKs raise their own classes), the upstream's
 * passed through, timeouts and unreachable upstreams; keys never echoed; and
 * histories the append rules would refuse, which are never a 500.
 */

import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import Anthropic from "@anthropic-ai/sdk";
import { fromCanonical, toCanonical } from "@condense/core";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import {
  anthropicClient,
  freshTag,
  openaiClient,
  queueAnswers,
  upstreamCalls,
} from "../support/gateway-helpers";
import { append, call, conversation, freshSession, transcript, waitFor } from "../support/helpers";

/** The app with other bindings, as an SDK's `fetch`. */
function appWith(overrides: Partial<Env>): typeof fetch {
  return async (input, init) => {
    const context = createExecutionContext();
    const response = await createApp().request(
      input instanceof Request ? input : String(input),
      init,
      { ...env, ...overrides },
      context,
    );
    // Background work (an answer's append) may outlive the response: it is not waited for here.
    void waitOnExecutionContext(context);
    return response;
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail");
}

const chat = (client: OpenAI, extra: Record<string, unknown> = {}) =>
  client.chat.completions.create({
    model: "gpt-4o",
    messages: [{ role: "user", content: "hi" }],
    ...extra,
  });

describe("the gateway's own errors", () => {
  it("answers an unknown upstream with 404 in each protocol's shape", async () => {
    const openaiError = await rejection(chat(openaiClient(freshTag(), {}, "nowhere")));
    expect(openaiError).toBeInstanceOf(OpenAI.NotFoundError);
    expect((openaiError as InstanceType<typeof OpenAI.NotFoundError>).code).toBe(
      "unknown_upstream",
    );
    expect((openaiError as Error).message).toContain("nowhere");

    const client = new Anthropic({
      baseURL: "https://condense.test/v1/gateway/nowhere",
      apiKey: "alice-key",
      maxRetries: 0,
      fetch: appWith({}),
    });
    const anthropicError = await rejection(
      client.messages.create({
        model: "claude-sonnet-5-5",
        max_tokens: 8,
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect(anthropicError).toBeInstanceOf(Anthropic.NotFoundError);
    expect((anthropicError as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({
      type: "error",
      error: { type: "not_found_error" },
    });
  });

  it("answers a wrong method or an unknown path in each protocol's shape, so the SDKs read it", async () => {
    const openai = openaiClient(freshTag());
    const wrongMethod = await rejection(openai.put("/responses", { body: {} }));
    expect(wrongMethod).toBeInstanceOf(OpenAI.APIError);
    const openaiError = wrongMethod as InstanceType<typeof OpenAI.APIError>;
    expect(openaiError.status).toBe(405);
    expect(openaiError.code).toBe("method_not_allowed");
    expect(openaiError.type).toBe("invalid_request_error");
    expect(openaiError.headers?.get("allow")).toBe("POST");
    const unknownPath = await rejection(openai.get("/no/such/endpoint"));
    expect(unknownPath).toBeInstanceOf(OpenAI.NotFoundError);
    expect((unknownPath as InstanceType<typeof OpenAI.APIError>).type).toBe("not_found_error");

    const anthropic = anthropicClient(freshTag());
    const anthropicError = await rejection(anthropic.put("/v1/messages", { body: {} }));
    expect(anthropicError).toBeInstanceOf(Anthropic.APIError);
    expect((anthropicError as InstanceType<typeof Anthropic.APIError>).status).toBe(405);
    expect((anthropicError as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringContaining("POST") },
    });
    const anthropicPath = await rejection(anthropic.get("/v1/no-such-endpoint"));
    expect(anthropicPath).toBeInstanceOf(Anthropic.NotFoundError);
    expect((anthropicPath as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
      type: "error",
      error: { type: "not_found_error" },
    });
  });

  it("refuses a request without a valid Condense credential, and never echoes a key", async () => {
    const withoutCondenseKey = await rejection(
      chat(openaiClient(freshTag(), { as: null, providerKey: "sk-live-provider-secret" })),
    );
    expect(withoutCondenseKey).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(
      JSON.stringify((withoutCondenseKey as InstanceType<typeof OpenAI.APIError>).error),
    ).not.toContain("sk-live-provider-secret");
    const badCondenseKey = await rejection(
      chat(
        openaiClient(freshTag(), {
          as: "wrong-condense-key",
          providerKey: "sk-live-provider-secret",
        }),
      ),
    );
    expect(badCondenseKey).toBeInstanceOf(OpenAI.AuthenticationError);
    const text = JSON.stringify((badCondenseKey as InstanceType<typeof OpenAI.APIError>).error);
    expect(text).not.toContain("sk-live-provider-secret");
    expect(text).not.toContain("wrong-condense-key");
  });

  it("checks the upstream and the credential before it reads the body", async () => {
    const unreadable = { rawBody: "{not json", headers: { "Content-Type": "application/json" } };
    const stranger = await call("POST", "/v1/gateway/up/chat/completions", {
      ...unreadable,
      as: "wrong-condense-key",
    });
    expect(stranger.status).toBe(401);
    expect(stranger.body).toMatchObject({ error: { code: "unauthorized" } });
    const nowhere = await call("POST", "/v1/gateway/nowhere/v1/messages", unreadable);
    expect(nowhere.status).toBe(404);
    expect(nowhere.body).toMatchObject({ type: "error", error: { type: "not_found_error" } });
    const unread = await call("POST", "/v1/gateway/up/chat/completions", unreadable);
    expect(unread.status).toBe(400);
    expect(unread.body).toMatchObject({
      error: { code: "invalid_json", type: "invalid_request_error" },
    });
  });

  it("answers a session whose context holds OpenAI compaction items with 409 but on /responses", async () => {
    const session = freshSession("gw-items");
    const history = conversation(4);
    await append(session, { messages: history, model: "gpt-4o" });
    await call("PATCH", `/v1/sessions/${session}`, { body: { strategy: "openai" } });
    const compacted = await call("POST", `/v1/sessions/${session}/compact`, { body: {} });
    expect(compacted.body).toMatchObject({ compacted: true });
    const next = { role: "user" as const, content: "Go on." };

    const error = await rejection(
      openaiClient(freshTag(), { session }).chat.completions.create({
        model: "gpt-4o",
        messages: [...history, next] as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
      }),
    );
    expect(error).toBeInstanceOf(OpenAI.ConflictError);
    const conflict = error as InstanceType<typeof OpenAI.ConflictError>;
    expect(conflict.code).toBe("format_not_available");
    expect(conflict.message).toContain("use /responses");

    const tag = freshTag();
    const input = fromCanonical(
      toCanonical({ messages: [...history, next] }),
      "responses",
    ).messages;
    await openaiClient(tag, { session }).responses.create({
      model: "gpt-4o",
      input: input as OpenAI.Responses.ResponseInputItem[],
    });
    const [sent] = await upstreamCalls(tag);
    const forwarded = sent?.body?.input as Array<Record<string, unknown>>;
    expect(forwarded.some((item) => item.type === "compaction")).toBe(true);
  });

  it("needs a provider key where the deployment holds none for the upstream", async () => {
    const error = await rejection(
      chat(openaiClient(freshTag(), { as: null, providerKey: "alice-key" }, "dead")),
    );
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as Error).message).toContain("GATEWAY_KEY_DEAD");
  });

  it("answers 502 for an upstream it cannot reach", async () => {
    const error = await rejection(chat(openaiClient(freshTag(), {}, "dead")));
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("upstream_unreachable");
  });

  it("refuses a request that is not the protocol's, in its shape", async () => {
    const client = openaiClient(freshTag());
    const error = await rejection(
      client.chat.completions.create({ model: "gpt-4o", messages: [] }),
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe("invalid_request");
    const badSession = await rejection(chat(openaiClient(freshTag(), { session: "../etc" })));
    expect(badSession).toBeInstanceOf(OpenAI.BadRequestError);
    expect((badSession as InstanceType<typeof OpenAI.BadRequestError>).code).toBe(
      "invalid_session_id",
    );
  });

  it("answers 504 when the upstream does not answer in time", async () => {
    const client = openaiClient(freshTag(), {
      scenario: { fault: "hang" },
      fetch: appWith({ GATEWAY_TIMEOUT_MS: "300" }),
    });
    const error = await rejection(chat(client));
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(504);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe("upstream_timeout");
  });

  it("ends a stream that goes quiet with the protocol's error event, and stores nothing of it", async () => {
    const session = freshSession("gw-err");
    const client = openaiClient(freshTag(), {
      session,
      scenario: { fault: "stall" },
      fetch: appWith({ GATEWAY_STREAM_IDLE_TIMEOUT_MS: "300" }),
    });
    const stream = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    const error = await rejection(
      (async () => {
        for await (const _chunk of stream) {
          // drained until the gateway ends it
        }
      })(),
    );
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain("GATEWAY_STREAM_IDLE_TIMEOUT_MS");
    expect((await transcript(session)).map((entry) => entry.role)).toEqual(["user"]);

    const anthropic = anthropicClient(freshTag(), {
      scenario: { fault: "stall" },
      fetch: appWith({ GATEWAY_STREAM_IDLE_TIMEOUT_MS: "300" }),
    });
    const anthropicError = await rejection(
      anthropic.messages
        .stream({
          model: "claude-sonnet-5-5",
          max_tokens: 8,
          messages: [{ role: "user", content: "hi" }],
        })
        .finalMessage(),
    );
    expect(anthropicError).toBeInstanceOf(Anthropic.APIError);
  });
});

describe("upstream errors pass through", () => {
  it("keeps the upstream's status and body", async () => {
    const error = await rejection(chat(openaiClient(freshTag(), { scenario: { fail: 503 } })));
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect((error as Error).message).toContain("scripted failure 503");

    const anthropicError = await rejection(
      anthropicClient(freshTag(), { scenario: { fail: 529 } }).messages.create({
        model: "claude-sonnet-5-5",
        max_tokens: 8,
        messages: [{ role: "user", content: "hi" }],
      }),
    );
    expect((anthropicError as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((anthropicError as Error).message).toContain("scripted failure 529");
  });
});

describe("streams the client abandons", () => {
  it("appends nothing of an answer the client stopped reading", async () => {
    const tag = freshTag();
    const session = freshSession("gw-abandon");
    const client = openaiClient(tag, { session, scenario: { slowMs: 40 } });
    const stream = await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "Tell me a long story." }],
      stream: true,
    });
    for await (const _chunk of stream) {
      stream.controller.abort();
      break;
    }
    await waitFor(
      async () => (await upstreamCalls(tag))[0]?.aborted === true,
      "the upstream to see the cancel",
    );
    expect((await transcript(session)).map((entry) => entry.role)).toEqual(["user"]);
  });
});

describe("histories the append rules refuse", () => {
  it("forwards a history whose tool result answers no call statelessly, kept apart from the transcript", async () => {
    const tag = freshTag();
    const session = freshSession("gw-rules");
    const reply = await openaiClient(tag, { session })
      .chat.completions.create({
        model: "gpt-4o",
        messages: [
          { role: "user", content: "go" },
          { role: "tool", tool_call_id: "call_ghost", content: "output of nothing" },
        ],
      })
      .withResponse();
    expect(reply.response.status).toBe(200);
    expect(reply.response.headers.get("X-Condense-Stateless")).toBe("tool-call-rules");
    // The session holds no message of it; the request is kept as a side request (issue 33).
    const opened = await call<{ messageCount: number }>("GET", `/v1/sessions/${session}`);
    expect(opened.body.messageCount).toBe(0);
    const side = reply.response.headers.get("X-Condense-Side-Request");
    const kept = await call<{ reason: string; messageCount: number }>(
      "GET",
      `/v1/sessions/${session}/side-requests/${side}`,
    );
    expect(kept.body).toMatchObject({ reason: "tool-call-rules", messageCount: 2 });
    expect(await upstreamCalls(tag)).toHaveLength(1);
  });

  it("lets a new generation reuse the id of a call the previous one left unanswered", async () => {
    const tag = freshTag();
    const session = freshSession("gw-rules");
    const client = openaiClient(tag, { session });
    const callA = {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_a", type: "function", function: { name: "ls", arguments: "{}" } }],
    };
    await queueAnswers(tag, [callA, callA, { role: "assistant", content: "Done." }]);
    await client.chat.completions.create({
      model: "gpt-4o",
      messages: [{ role: "user", content: "List the files." }],
    });
    await waitFor(async () => (await transcript(session)).length === 2, "the first answer");
    // The agent rewinds before running the tool: a new generation, whose answer calls `call_a` again.
    const rewound = [{ role: "user" as const, content: "List the source files." }];
    const second = await client.chat.completions.create({ model: "gpt-4o", messages: rewound });
    const answer = second.choices[0]?.message;
    if (answer === undefined) throw new Error("no answer");
    const third = await client.chat.completions
      .create({
        model: "gpt-4o",
        messages: [...rewound, answer, { role: "tool", tool_call_id: "call_a", content: "src/" }],
      })
      .withResponse();
    expect(third.response.headers.get("X-Condense-Generation")).toBe("2");
    await waitFor(async () => (await transcript(session)).length === 6, "the third answer");
    const generation = await call<{ messages: Array<{ role: string }> }>(
      "GET",
      `/v1/sessions/${session}/transcript?generation=2`,
    );
    expect(generation.body.messages.map((entry) => entry.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    const first = await call<{ messages: Array<{ role: string }>; nextAfter: number | null }>(
      "GET",
      `/v1/sessions/${session}/transcript?generation=1`,
    );
    expect(first.body.messages.map((entry) => entry.role)).toEqual(["user", "assistant"]);
    expect(first.body.nextAfter).toBeNull();
    expect((await call("GET", `/v1/sessions/${session}/transcript?generation=3`)).status).toBe(404);
  });

  it("extends a session appended through /messages (its hashes are computed on first use)", async () => {
    const session = freshSession("gw-rules");
    const history = [
      { role: "system", content: "You are terse." },
      { role: "user", content: "What is 2 + 2?" },
    ];
    await append(session, { messages: history, model: "gpt-4o" });
    const reply = await openaiClient(freshTag(), { session })
      .chat.completions.create({
        model: "gpt-4o",
        messages: [
          ...(history as OpenAI.Chat.Completions.ChatCompletionMessageParam[]),
          { role: "user", content: "And 3 + 3?" },
        ],
      })
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Generation")).toBe("1");
    await waitFor(async () => (await transcript(session)).length === 4, "the answer");
    expect((await transcript(session)).map((entry) => entry.role)).toEqual([
      "system",
      "user",
      "user",
      "assistant",
    ]);
  });
});
