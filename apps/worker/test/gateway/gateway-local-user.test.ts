/**
 * The local deployment's gateway (`pnpm start`, `GATEWAY_LOCAL_USER`): an
 * agent that exports only its base URL sends its own provider key, which is
 * not read as a Condense key. Its requests are the local user's, and go
 * upstream with the deployment's key (else the agent's own). Any other host
 * ignores the variable.
 */

import { env } from "cloudflare:test";
import { scenarioHeaders } from "@condense/test-servers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { freshTag, upstreamCalls } from "../support/gateway-helpers";

const LOCAL = "http://localhost:8787";

function claudeCodeRequest(origin: string, tag: string, session: string): Request {
  return new Request(`${origin}/v1/gateway/anthropic/v1/messages`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "anthropic-version": "2023-06-01",
      "x-api-key": "sk-ant-the-agents-own",
      "x-claude-code-session-id": session,
      ...scenarioHeaders({ name: tag }),
    },
    body: JSON.stringify({
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      messages: [{ role: "user", content: "hello" }],
    }),
  });
}

describe("a local deployment's gateway", () => {
  it("takes an agent's provider key as the local user's request, the deployment's key upstream", async () => {
    const tag = freshTag();
    const session = crypto.randomUUID();
    const response = await createApp().request(claudeCodeRequest(LOCAL, tag, session), undefined, {
      ...env,
      GATEWAY_LOCAL_USER: "alice",
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("X-Condense-Session")).toBe(`claude-code:${session}`);
    const [sent] = await upstreamCalls(tag);
    expect(sent?.headers["x-api-key"]).toBe("sk-ant-deployment");
    // The session is alice's: her key reads it.
    const read = await createApp().request(
      `${LOCAL}/v1/sessions/claude-code:${session}`,
      { headers: { Authorization: "Bearer alice-key" } },
      env,
    );
    expect(read.status).toBe(200);
  });

  it("passes the agent's own key upstream when the deployment holds none", async () => {
    const tag = freshTag();
    const response = await createApp().request(
      claudeCodeRequest(LOCAL, tag, crypto.randomUUID()),
      undefined,
      { ...env, GATEWAY_LOCAL_USER: "alice", ANTHROPIC_API_KEY: "" },
    );
    expect(response.status).toBe(200);
    const [sent] = await upstreamCalls(tag);
    expect(sent?.headers["x-api-key"]).toBe("sk-ant-the-agents-own");
  });

  it("passes a Gemini agent's own key upstream in Gemini's header, where it read it", async () => {
    const tag = freshTag();
    const response = await createApp().request(
      new Request(`${LOCAL}/v1/gateway/up/v1beta/models/gemini-2.5-pro:generateContent`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-goog-api-key": "gm-the-agents-own",
          "X-Condense-Session": "none",
          ...scenarioHeaders({ name: tag }),
        },
        body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hello" }] }] }),
      }),
      undefined,
      { ...env, GATEWAY_LOCAL_USER: "alice", GATEWAY_KEY_UP: "" },
    );
    expect(response.status).toBe(200);
    const [sent] = await upstreamCalls(tag);
    expect(sent?.headers["x-goog-api-key"]).toBe("gm-the-agents-own");
    expect(sent?.headers["x-api-key"]).toBeUndefined();
  });

  it("is not opened by the variable on a public host", async () => {
    const response = await createApp().request(
      claudeCodeRequest("https://condense.example", freshTag(), crypto.randomUUID()),
      undefined,
      { ...env, GATEWAY_LOCAL_USER: "alice" },
    );
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { type: string } }).error.type).toBeDefined();
  });
});
