/**
 * The spending guard on the deployment's provider keys
 * (`GATEWAY_USER_TOKENS_PER_DAY`): the upstream's reported usage (input +
 * output, streamed or not) counted per user per UTC day in the user's object;
 * over it, 429 `budget_exceeded` in the protocol's shape with nothing sent
 * upstream; the caller's own key never limited; other users and other days
 * unaffected; the summaries a session writes through its own upstream
 * (`cachedSummaries`) counted as its turns are.
 */

import { env } from "cloudflare:test";
import { SUMMARY_SECTIONS } from "@condense/core";
import type OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { utcDay } from "../../src/gateway/spending-guard";
import { userStub } from "../../src/user/user-stub";
import {
  anthropicClient,
  freshTag,
  openaiClient,
  queueAnswers,
  upstreamCalls,
} from "../support/gateway-helpers";
import { call, freshSession, prose, waitFor } from "../support/helpers";
import { freshUser, userIdOf } from "../support/user-helpers";

/** Small enough that one answer of the test upstream (a prompt of a few tokens + 7) reaches it. */
const CAP = 10;

function appFetch(bindings: Partial<Env>): typeof fetch {
  const app = createApp();
  return async (input, init) => app.request(input, init, { ...env, ...bindings });
}

const guarded = appFetch({ GATEWAY_USER_TOKENS_PER_DAY: String(CAP) });

const spent = (token: string, day = utcDay(Date.now())) =>
  userStub(env, userIdOf(token)).tokensSpent(day);

/** The OpenAI SDK on the deployment's key: the Condense credential is its `Authorization`. */
function onDeploymentKey(tag: string, token: string, session?: string) {
  return openaiClient(tag, {
    as: null,
    providerKey: token,
    fetch: guarded,
    ...(session !== undefined ? { session } : {}),
  });
}

const ask = { model: "gpt-4o", messages: [{ role: "user" as const, content: "hello there" }] };

/** The status a request of `token`'s on the deployment's key gets (200, or the error's). */
async function statusOnDeploymentKey(token: string): Promise<number> {
  const outcome = await onDeploymentKey(freshTag(), token)
    .chat.completions.create(ask)
    .then(
      () => 200,
      (e: unknown) => (e as { status: number }).status,
    );
  return outcome;
}

describe("the spending guard", () => {
  it("counts a user's tokens and refuses them once over, in OpenAI's shape, sending nothing", async () => {
    const token = await freshUser("spender");
    const tag = freshTag();
    const client = onDeploymentKey(tag, token);
    const first = await client.chat.completions.create(ask);
    const reported = (first.usage?.prompt_tokens ?? 0) + (first.usage?.completion_tokens ?? 0);
    expect(reported).toBeGreaterThanOrEqual(CAP);
    await waitFor(async () => (await spent(token)) === reported, "the answer's usage counted");

    const session = freshSession("g");
    const error = await onDeploymentKey(tag, token, session)
      .chat.completions.create(ask)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 429, code: "budget_exceeded" });
    expect((error as Error).message).toContain("GATEWAY_USER_TOKENS_PER_DAY");
    const retryAfter = Number((error as { headers: Headers }).headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    // Only the first request reached the upstream, and the refused one made no session.
    expect(await upstreamCalls(tag)).toHaveLength(1);
    expect((await call("GET", `/v1/sessions/${session}`, { as: token })).status).toBe(404);
  });

  it("counts streamed answers, and answers Anthropic's SDK in its shape", async () => {
    const token = await freshUser("streamer");
    const tag = freshTag();
    const client = anthropicClient(tag, { as: null, providerKey: token, fetch: guarded });
    const stream = await client.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 64,
      stream: true,
      messages: [{ role: "user", content: "hello there" }],
    });
    for await (const _event of stream) {
      // Read to the end, as a client does.
    }
    await waitFor(async () => (await spent(token)) >= CAP, "the stream's usage counted");
    const error = await client.messages
      .create({
        model: "claude-sonnet-4-5",
        max_tokens: 64,
        messages: [{ role: "user", content: "again" }],
      })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 429,
      error: { type: "error", error: { type: "rate_limit_error" } },
    });
    expect(await upstreamCalls(tag)).toHaveLength(1);
  });

  it("counts a streamed Chat Completion's usage", async () => {
    const token = await freshUser("chat-streamer");
    const stream = await onDeploymentKey(freshTag(), token).chat.completions.create({
      ...ask,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const _chunk of stream) {
      // Read to the end.
    }
    await waitFor(async () => (await spent(token)) >= CAP, "the stream's usage counted");
  });

  // With the ANALYTICS binding too: the turn's data point wraps the plan's answer, and once dropped
  // the request it was sent with, so summaries went uncounted in production only.
  it.each([
    ["", {}],
    [", with the ANALYTICS binding", { ANALYTICS: { writeDataPoint: () => {} } }],
  ])(
    "counts the summaries a session writes through its own upstream (cachedSummaries) against the cap%s",
    async (_, analytics) => {
      const token = await freshUser("summarizer");
      const tag = freshTag();
      const session = freshSession("g-summary");
      const client = openaiClient(tag, {
        as: null,
        providerKey: token,
        fetch: appFetch({ GATEWAY_USER_TOKENS_PER_DAY: "10000000", ...analytics }),
        session,
        scenario: { prefixCache: true },
      });
      const messages = prose(40) as unknown as OpenAI.Chat.ChatCompletionMessageParam[];
      await client.chat.completions.create({ model: "gpt-4o", messages: messages.slice(0, 2) });
      const settings = {
        contextWindow: 40_000,
        policy: "window",
        threshold: 0.25,
        reserveTokens: 4_000,
        tailTokens: 1_500,
        cachedSummaries: true,
      };
      expect(
        (await call("PATCH", `/v1/sessions/${session}`, { as: token, body: settings })).status,
      ).toBe(200);
      const summary = SUMMARY_SECTIONS.map((section) => `## ${section}\nThe migration, part 1.`);
      await queueAnswers(tag, [
        { role: "assistant", content: "Noted." },
        { role: "assistant", content: summary.join("\n\n") },
      ]);
      await client.chat.completions.create({ model: "gpt-4o", messages });
      const compacted = async () =>
        (
          await call<{ compactions: unknown[] }>("GET", `/v1/sessions/${session}/compactions`, {
            as: token,
          })
        ).body.compactions.length === 1;
      await waitFor(compacted, "the compaction");
      await waitFor(async () => (await upstreamCalls(tag)).length === 3, "the summary request");
      const calls = await upstreamCalls(tag);
      // Each answer reports its prompt and 7 tokens of output: the two turns', then the summary's.
      const total = calls.reduce((sum, recorded) => sum + (recorded.tokens ?? 0) + 7, 0);
      await waitFor(async () => (await spent(token)) === total, "the summary's tokens counted");
    },
  );

  it("leaves another user unaffected", async () => {
    const spender = await freshUser("spender");
    await userStub(env, userIdOf(spender)).recordTokens(utcDay(Date.now()), CAP * 100);
    const other = await freshUser("other");
    expect(await statusOnDeploymentKey(spender)).toBe(429);
    expect(await statusOnDeploymentKey(other)).toBe(200);
  });

  it("never limits or counts a request with the caller's own provider key", async () => {
    const token = await freshUser("own-key");
    const today = utcDay(Date.now());
    await userStub(env, userIdOf(token)).recordTokens(today, CAP * 100);
    expect(await statusOnDeploymentKey(token)).toBe(429);
    const tag = freshTag();
    const ownKey = openaiClient(tag, { as: token, providerKey: "sk-caller-own", fetch: guarded });
    const answer = await ownKey.chat.completions.create(ask);
    expect(answer.choices[0]?.message.role).toBe("assistant");
    expect(await upstreamCalls(tag)).toHaveLength(1);
    // The answer's tokens are not the deployment's: the count stays where it was.
    await ownKey.chat.completions.create(ask);
    expect(await spent(token)).toBe(CAP * 100);
  });

  it("starts every UTC day afresh", async () => {
    const token = await freshUser("yesterday");
    const now = Date.now();
    const yesterday = utcDay(now - 86_400_000);
    expect(yesterday).not.toBe(utcDay(now));
    const user = userStub(env, userIdOf(token));
    await user.recordTokens(yesterday, CAP * 100);
    expect(await statusOnDeploymentKey(token)).toBe(200);
    expect(await spent(token, yesterday)).toBe(CAP * 100);
    // The same count today is over.
    await user.recordTokens(utcDay(Date.now()), CAP * 100);
    expect(await statusOnDeploymentKey(token)).toBe(429);
  });

  it("limits nothing without GATEWAY_USER_TOKENS_PER_DAY", async () => {
    const token = await freshUser("uncapped");
    await userStub(env, userIdOf(token)).recordTokens(utcDay(Date.now()), 1_000_000_000);
    const client = openaiClient(freshTag(), { as: null, providerKey: token });
    const answer = await client.chat.completions.create(ask);
    expect(answer.choices[0]?.message.role).toBe("assistant");
  });

  it("refuses requests while the cap is not a whole number (a configuration error naming it), rather than spend without one", async () => {
    const token = await freshUser("misconfigured");
    const tag = freshTag();
    const client = openaiClient(tag, {
      as: null,
      providerKey: token,
      fetch: appFetch({ GATEWAY_USER_TOKENS_PER_DAY: "1e6 tokens" }),
    });
    const error = await client.chat.completions.create(ask).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 500 });
    expect((error as Error).message).toContain("GATEWAY_USER_TOKENS_PER_DAY");
    expect(await upstreamCalls(tag)).toEqual([]);
  });
});

describe("utcDay", () => {
  it("turns at midnight UTC", () => {
    expect(utcDay(Date.UTC(2026, 10, 20, 23, 59, 59, 999))).toBe("2026-11-20");
    expect(utcDay(Date.UTC(2026, 10, 21, 0, 0, 0, 0))).toBe("2026-11-21");
  });
});
