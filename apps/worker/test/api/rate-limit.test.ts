/**
 * The per-user rate limit (`RATE_LIMITER`, a Workers Rate Limiting binding),
 * against a fake binding that lets each key through a fixed number of times:
 * over it, 429 `rate_limited` with `Retry-After`, in the gateway's protocol
 * shapes there, and nothing changed or sent upstream.
 */

import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ErrorResponseBody } from "../../src/api/schemas";
import { createApp } from "../../src/app";
import { anthropicClient, freshTag, openaiClient, upstreamCalls } from "../support/gateway-helpers";
import { call, conversation, freshSession } from "../support/helpers";

/** A rate limiter that lets each key through `allowed` times, and records the keys it was asked. */
function fakeLimiter(allowed: number): { binding: RateLimit; keys: string[] } {
  const keys: string[] = [];
  const binding: RateLimit = {
    limit: ({ key }) => {
      keys.push(key);
      const seen = keys.filter((k) => k === key).length;
      return Promise.resolve({ success: seen <= allowed });
    },
  };
  return { binding, keys };
}

/** The app with `bindings` over the test's, as a `fetch` for the SDK clients. */
function appFetch(bindings: Partial<Env>): typeof fetch {
  const app = createApp();
  return async (input, init) => app.request(input, init, { ...env, ...bindings });
}

describe("the rate limit on /v1", () => {
  it("answers a burst over the limit with 429 rate_limited and Retry-After, per user", async () => {
    const limiter = fakeLimiter(2);
    const bindings = { RATE_LIMITER: limiter.binding };
    expect((await call("GET", "/v1/sessions", { env: bindings })).status).toBe(200);
    expect((await call("GET", "/v1/sessions", { env: bindings })).status).toBe(200);
    const refused = await call<ErrorResponseBody>("GET", "/v1/sessions", { env: bindings });
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe("rate_limited");
    expect(refused.body.error.message).toMatch(/retry/i);
    expect(Number(refused.headers.get("Retry-After"))).toBeGreaterThan(0);
    // Another user has their own count.
    expect((await call("GET", "/v1/sessions", { as: "bob", env: bindings })).status).toBe(200);
    expect(new Set(limiter.keys)).toEqual(new Set(["alice", "bob"]));
  });

  it("changes nothing for a refused request", async () => {
    const bindings = { RATE_LIMITER: fakeLimiter(0).binding };
    const id = freshSession();
    const refused = await call("POST", `/v1/sessions/${id}/messages`, {
      env: bindings,
      body: { messages: conversation(0) },
    });
    expect(refused.status).toBe(429);
    expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(404);
  });

  it("limits nothing without the binding", async () => {
    for (let i = 0; i < 5; i++) {
      expect((await call("GET", "/v1/sessions", { env: { RATE_LIMITER: undefined } })).status).toBe(
        200,
      );
    }
  });

  it("does not limit the public routes", async () => {
    const bindings = { RATE_LIMITER: fakeLimiter(0).binding };
    expect((await call("GET", "/healthz", { as: null, env: bindings })).status).toBe(200);
  });
});

describe("the rate limit on the gateway", () => {
  it("answers in OpenAI's shape and sends nothing upstream", async () => {
    const tag = freshTag();
    const fetch = appFetch({ RATE_LIMITER: fakeLimiter(0).binding });
    const client = openaiClient(tag, { fetch });
    const error = await client.chat.completions
      .create({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, code: "rate_limited" });
    expect((error as { headers: Headers }).headers.get("retry-after")).not.toBeNull();
    expect(await upstreamCalls(tag)).toEqual([]);
  });

  it("answers in Anthropic's shape and sends nothing upstream", async () => {
    const tag = freshTag();
    const fetch = appFetch({ RATE_LIMITER: fakeLimiter(0).binding });
    const client = anthropicClient(tag, { fetch });
    const error = await client.messages
      .create({
        model: "claude-sonnet-4-5",
        max_tokens: 64,
        messages: [{ role: "user", content: "hi" }],
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 429,
      error: { type: "error", error: { type: "rate_limit_error" } },
    });
    expect(await upstreamCalls(tag)).toEqual([]);
  });
});
