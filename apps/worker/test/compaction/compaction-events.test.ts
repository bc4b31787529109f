/**
 * Compaction events (issue 33, `session/compaction/compaction-events`): each compaction's
 * `compaction.started` and its outcome, with tier, tokens and the bill, kept
 * in `/events` and POSTed to the session's webhook, signed; a delivery that
 * fails is retried from the alarm with backoff until it is delivered, and
 * neither recording nor delivering ever holds up an append.
 */

import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { scenarioModel } from "@condense/test-servers";
import { describe, expect, it } from "vitest";
import type { EventsResponseBody, SessionStatusBody } from "../../src/api/schemas";
import { signature } from "../../src/session/compaction/compaction-events";
import { freshTag, upstreamCalls } from "../support/gateway-helpers";
import {
  append,
  call,
  createSmallSession,
  freshSession,
  llmSession,
  status,
  stubFor,
  toolStep,
  waitFor,
} from "../support/helpers";

const SECRET = "whsec-test-0123456789abcdef";

const events = async (id: string) =>
  (await call<EventsResponseBody>("GET", `/v1/sessions/${id}/events`)).body.events;

/** A small session whose context is over its trigger, with a webhook recording under `tag`. */
async function sessionWithWebhook(tag: string, failures = 0): Promise<string> {
  const id = freshSession("events");
  await createSmallSession(id, { contextWindow: 16_000 });
  const webhookUrl = `${env.TEST_GATEWAY_UPSTREAM_URL}/webhook?tag=${tag}&fail=${failures}`;
  const patched = await call("PATCH", `/v1/sessions/${id}`, {
    body: { webhookUrl, webhookSecret: SECRET },
  });
  expect(patched.status).toBe(200);
  for (let step = 0; step < 8; step++) {
    expect((await append(id, { messages: toolStep(step, 4_000) })).status).toBe(200);
  }
  return id;
}

const compact = (id: string) => call("POST", `/v1/sessions/${id}/compact`, { body: {} });

describe("compaction events", () => {
  it("are kept with tier, tokens and bill, and posted to the webhook signed", async () => {
    const tag = freshTag();
    const id = await sessionWithWebhook(tag);
    expect((await compact(id)).status).toBe(200);

    const kept = await events(id);
    expect(kept.map((event) => event.type)).toEqual(["compaction.started", "compaction.committed"]);
    const [started, committed] = kept;
    expect(committed?.run).toBe(started?.run);
    expect(started?.data).toMatchObject({ trigger: "manual", tokens: expect.any(Number) });
    expect(committed?.data).toMatchObject({
      trigger: "manual",
      tier: expect.any(Number),
      tokensBefore: expect.any(Number),
      tokensAfter: expect.any(Number),
      bill: { costTokens: expect.any(Number) },
    });
    expect(Number(committed?.data.tokensAfter)).toBeLessThan(Number(committed?.data.tokensBefore));

    await waitFor(async () => (await upstreamCalls(tag)).length >= 2, "the webhook's posts");
    const posts = await upstreamCalls(tag);
    expect(posts.map((post) => post.headers["x-condense-event"])).toEqual([
      "compaction.started",
      "compaction.committed",
    ]);
    for (const [index, post] of posts.entries()) {
      expect(post.body).toEqual(kept[index]);
      expect(post.headers["x-condense-event-id"]).toBe(String(kept[index]?.id));
      // The receiver checks the signature with the secret it shares with the session.
      const header = post.headers["x-condense-signature"] ?? "";
      const t = Number(/t=(\d+)/.exec(header)?.[1]);
      expect(header).toBe(await signature(SECRET, post.text, t * 1000));
    }
    await waitFor(async () => (await status(id)).webhook.delivered === 2, "delivered");
  });

  it("are delivered after the webhook's failures, from the alarm, and never hold up an append", async () => {
    const tag = freshTag();
    const id = await sessionWithWebhook(tag, 3);
    expect((await compact(id)).status).toBe(200);
    await waitFor(async () => (await upstreamCalls(tag)).length >= 1, "a first attempt");
    const failing: SessionStatusBody = await status(id);
    expect(failing.webhook.pending).toBe(2);
    expect(failing.webhook.lastError).toBe("the webhook answered 500");
    expect(failing.webhook.nextAttemptAt).not.toBeNull();
    // Appends go on while the webhook fails.
    expect((await append(id, { messages: toolStep(20, 100) })).status).toBe(200);

    const stub = stubFor("alice", id);
    for (let round = 0; round < 6 && (await status(id)).webhook.pending > 0; round++) {
      // The backoff has passed.
      await runInDurableObject(stub, (_instance, state) => {
        state.storage.sql.exec(
          "UPDATE condense_events SET next_attempt_at = 0 WHERE delivery = 'pending'",
        );
      });
      await runDurableObjectAlarm(stub);
    }
    const delivered = await status(id);
    expect(delivered.webhook).toMatchObject({ pending: 0, delivered: 2, failed: 0 });
    const posts = await upstreamCalls(tag);
    // Three failures, then each event once: nothing lost.
    expect(posts).toHaveLength(5);
    const ids = new Set(posts.slice(3).map((post) => post.headers["x-condense-event-id"]));
    expect([...ids].sort()).toEqual((await events(id)).map((event) => String(event.id)).sort());
  });

  it("say when the LLM summarizer failed and the tier degraded", async () => {
    const id = await llmSession(scenarioModel({ name: "events", fail: 500 }));
    expect((await compact(id)).status).toBe(200);
    const kept = await events(id);
    expect(kept.map((event) => event.type)).toEqual(["compaction.started", "compaction.committed"]);
    // The summary the event reports is the deterministic tier's, not the failed LLM's.
    expect(kept[1]?.data).toMatchObject({
      tier: 4,
      summarizer: "extractive",
      summarizerFailure: "server_error",
    });
  });

  it("say when a compaction threw, and what its deterministic fallback committed", async () => {
    const id = await sessionWithWebhook(freshTag());
    // Settings as a bug might have stored them: every configured compaction throws.
    await runInDurableObject(stubFor("alice", id), (_instance, state) => {
      state.storage.sql.exec(
        "INSERT OR REPLACE INTO condense_settings (key, value) VALUES ('identifierPolicy', '\"custom\"')",
      );
    });
    expect((await compact(id)).status).toBe(200);
    const kept = await events(id);
    expect(kept.map((event) => event.type)).toEqual([
      "compaction.started",
      "compaction.failed",
      "compaction.committed",
    ]);
    const [, failed, committed] = kept;
    expect(failed?.data).toMatchObject({ fallback: true, failedAttempts: 1 });
    expect(String(failed?.data.error)).toContain("identifierInstructions");
    expect(committed?.data).toMatchObject({ fallback: true, tier: 4 });
  });

  it("need a secret to sign with: a webhook without one is refused and nothing changes", async () => {
    const id = freshSession("events");
    await createSmallSession(id);
    const refused = await call<{ error: { code: string; details: { setting: string } } }>(
      "PATCH",
      `/v1/sessions/${id}`,
      { body: { webhookUrl: "https://hooks.example.com/condense" } },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: "invalid_options",
      details: { setting: "webhookSecret" },
    });
    expect((await status(id)).settings.webhookUrl).toBeNull();
    // The secret is never shown.
    await call("PATCH", `/v1/sessions/${id}`, {
      body: { webhookUrl: "https://hooks.example.com/condense", webhookSecret: SECRET },
    });
    expect(JSON.stringify(await status(id))).not.toContain(SECRET);
  });
});
