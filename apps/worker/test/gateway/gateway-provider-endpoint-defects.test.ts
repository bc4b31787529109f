/**
 * The providers' endpoints beside their model requests, where they went wrong:
 * an Anthropic upstream's own 404 on `count_tokens` (a model it does not know)
 * passes through rather than being read as an upstream without the endpoint,
 * and an upstream `/responses/compact` on the deployment's key counts against
 * the user's daily tokens as a model request does.
 */

import { env } from "cloudflare:test";
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { utcDay } from "../../src/gateway/spending-guard";
import { userStub } from "../../src/user/user-stub";
import { anthropicClient, freshTag, openaiClient, upstreamCalls } from "../support/gateway-helpers";
import { waitFor } from "../support/helpers";
import { freshUser, userIdOf } from "../support/user-helpers";

describe("Anthropic count_tokens, the upstream's own 404", () => {
  it("passes a model the upstream does not know through, in its words", async () => {
    const tag = freshTag();
    const client = anthropicClient(tag, { headers: { "X-Condense-Session": "none" } });
    const error = await client.messages
      .countTokens({
        model: "claude-missing-model",
        messages: [{ role: "user", content: "count me" }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toEqual({
      type: "error",
      error: { type: "not_found_error", message: "model: claude-missing-model" },
    });
    expect((error as { headers: Headers }).headers.get("X-Condense-Answered-By")).toBe("upstream");
    expect(await upstreamCalls(tag)).toHaveLength(1);
  });

  it("still answers with the engine's count where the upstream has no such endpoint", async () => {
    const counted = await anthropicClient(freshTag(), {
      scenario: { bare: true },
      headers: { "X-Condense-Session": "none" },
    })
      .messages.countTokens({
        model: "claude-opus-4-6",
        messages: [{ role: "user", content: "count me" }],
      })
      .withResponse();
    expect(counted.response.headers.get("X-Condense-Answered-By")).toBe("gateway");
    expect(counted.data.input_tokens).toBeGreaterThan(0);
  });
});

describe("an upstream /responses/compact on the deployment's key", () => {
  it("adds the compaction's tokens to the user's count of the day", async () => {
    const app = createApp();
    const guarded: typeof fetch = async (input, init) =>
      app.request(input, init, { ...env, GATEWAY_USER_TOKENS_PER_DAY: "1000000" });
    const token = await freshUser("compactor");
    const client = openaiClient(freshTag(), { as: null, providerKey: token, fetch: guarded });
    const compacted = await client.responses.compact({
      model: "gpt-5",
      input: [{ role: "user", content: "Fix the failing build." }],
    });
    const tokens = compacted.usage.input_tokens + compacted.usage.output_tokens;
    expect(tokens).toBeGreaterThan(0);
    const spent = () => userStub(env, userIdOf(token)).tokensSpent(utcDay(Date.now()));
    await waitFor(async () => (await spent()) === tokens, "the compaction's tokens counted");
  });
});
