/**
 * Sessions without configuration: with no `X-Condense-Session`, the gateway
 * keeps the session the agent names itself (`gateway/agent-identity`), per
 * user, and says so in `X-Condense-Session` and `X-Condense-Session-Source`.
 * An explicit header wins; `X-Condense-Session: none` keeps a request
 * stateless.
 */

import { describe, expect, it } from "vitest";
import { anthropicClient, freshTag, openaiClient } from "../support/gateway-helpers";
import { call, transcript } from "../support/helpers";

const question = [{ role: "user" as const, content: "What is in src/index.ts?" }];

function agentId(): string {
  return crypto.randomUUID();
}

describe("a gateway request that names no session", () => {
  it("is kept under Claude Code's own session id, per user", async () => {
    const id = agentId();
    const client = anthropicClient(freshTag(), {
      headers: { "x-claude-code-session-id": id },
    });
    const first = await client.messages
      .create({ model: "claude-sonnet-4-5", max_tokens: 100, messages: question })
      .withResponse();
    const session = `claude-code:${id}`;
    expect(first.response.headers.get("X-Condense-Session")).toBe(session);
    expect(first.response.headers.get("X-Condense-Session-Source")).toBe(
      "x-claude-code-session-id",
    );
    expect(first.response.headers.get("X-Condense-Generation")).toBe("1");
    const stored = await transcript(session);
    expect(stored.map((message) => message.role)).toEqual(["user", "assistant"]);
    // Another user sending the same agent id has a session of their own.
    const bob = await call("GET", `/v1/sessions/${encodeURIComponent(session)}`, { as: "bob" });
    expect(bob.status).toBe(404);
  });

  it("is kept under the session in Claude Code's metadata.user_id", async () => {
    const id = agentId();
    const client = anthropicClient(freshTag());
    const reply = await client.messages
      .create({
        model: "claude-sonnet-4-5",
        max_tokens: 100,
        messages: question,
        metadata: { user_id: JSON.stringify({ device_id: "dev", session_id: id }) },
      })
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Session")).toBe(`claude-code:${id}`);
    expect(reply.response.headers.get("X-Condense-Session-Source")).toBe("metadata.user_id");
  });

  it("is kept under Codex's session-id header on Responses", async () => {
    const id = agentId();
    const client = openaiClient(freshTag(), { headers: { "session-id": id, "thread-id": id } });
    const reply = await client.responses
      .create({ model: "gpt-5.5", input: "What is in src/index.ts?", prompt_cache_key: id })
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Session")).toBe(`codex:${id}`);
    expect(reply.response.headers.get("X-Condense-Session-Source")).toBe("session-id");
    expect((await transcript(`codex:${id}`)).length).toBe(2);
  });

  it("is kept under a generic prompt_cache_key on Chat Completions", async () => {
    const key = `ses_${agentId().replaceAll("-", "")}`;
    const client = openaiClient(freshTag());
    const reply = await client.chat.completions
      .create({ model: "gpt-4o", messages: question, prompt_cache_key: key })
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Session")).toBe(`cache-key:${key}`);
    expect(reply.response.headers.get("X-Condense-Session-Source")).toBe("prompt_cache_key");
  });

  it("hashes an identity no session id can hold, and still answers", async () => {
    const client = openaiClient(freshTag());
    const reply = await client.chat.completions
      .create({ model: "gpt-4o", messages: question, prompt_cache_key: `a b/${"x".repeat(300)}` })
      .withResponse();
    expect(reply.response.status).toBe(200);
    expect(reply.response.headers.get("X-Condense-Session")).toMatch(/^cache-key:h-[0-9a-f]{40}$/);
  });

  it("stays stateless when the agent names nothing", async () => {
    const client = openaiClient(freshTag());
    const reply = await client.chat.completions
      .create({ model: "gpt-4o", messages: question })
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Session")).toBeNull();
    expect(reply.response.headers.get("X-Condense-Session-Source")).toBeNull();
  });
});

describe("an explicit X-Condense-Session", () => {
  it("wins over the agent's own id", async () => {
    const id = agentId();
    const session = `explicit-${id}`;
    const client = anthropicClient(freshTag(), {
      session,
      headers: { "x-claude-code-session-id": id },
    });
    const reply = await client.messages
      .create({ model: "claude-sonnet-4-5", max_tokens: 100, messages: question })
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Session")).toBe(session);
    expect(reply.response.headers.get("X-Condense-Session-Source")).toBe("X-Condense-Session");
    expect(
      (await call("GET", `/v1/sessions/${encodeURIComponent(`claude-code:${id}`)}`)).status,
    ).toBe(404);
  });

  it("of none keeps the request stateless even when the agent names a session", async () => {
    const id = agentId();
    const client = anthropicClient(freshTag(), {
      session: "none",
      headers: { "x-claude-code-session-id": id },
    });
    const reply = await client.messages
      .create({ model: "claude-sonnet-4-5", max_tokens: 100, messages: question })
      .withResponse();
    expect(reply.response.headers.get("X-Condense-Session")).toBeNull();
    expect(
      (await call("GET", `/v1/sessions/${encodeURIComponent(`claude-code:${id}`)}`)).status,
    ).toBe(404);
    expect((await call("GET", "/v1/sessions/none")).status).toBe(404);
  });
});
