/**
 * Settings that would make every compaction fail are refused at PATCH, and a
 * compaction that throws anyway (settings broken behind the API's back, a
 * summarizer configuration that throws) never leaves a session stuck: manual,
 * overflow and context compactions fall back to the deterministic tier at once,
 * the alarm retries with backoff and then falls back, and the failure shows in
 * the status and in `/compactions`.
 */

import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { validateMessages } from "@condense/core";
import { describe, expect, it } from "vitest";
import type {
  ContextResponseBody,
  ManualCompactResponseBody,
  OverflowResponseBody,
} from "../../src/api/schemas";
import {
  append,
  call,
  compactions,
  conversation,
  createSmallSession,
  freshSession,
  moveClockToDue,
  runAlarmWhenDue,
  sessionNow,
  status,
  stubFor,
} from "../support/helpers";

/** Writes settings rows directly, as a bug or an old version might have stored them. */
async function breakSettings(id: string, settings: Record<string, unknown>): Promise<void> {
  await runInDurableObject(stubFor("alice", id), (_instance, state) => {
    for (const [key, value] of Object.entries(settings)) {
      state.storage.sql.exec(
        "INSERT OR REPLACE INTO condense_settings (key, value) VALUES (?, ?)",
        key,
        JSON.stringify(value),
      );
    }
  });
}

const patch = (id: string, body: unknown) => call("PATCH", `/v1/sessions/${id}`, { body });

/** A session over its trigger (a compaction is scheduled), not over its budget. */
async function crossedSession(): Promise<string> {
  const id = freshSession();
  await createSmallSession(id, { contextWindow: 32_000, threshold: 0.3 });
  const crossing = await append(id, { messages: conversation(20).slice(2) });
  expect(crossing.body.compaction.status).toBe("scheduled");
  expect(crossing.body.tokens).toBeLessThan((await status(id)).budget);
  return id;
}

describe("settings at PATCH", () => {
  it("refuses settings every compaction would fail on (400 invalid_options naming the field and the fix), changing nothing", async () => {
    const id = freshSession();
    // Before the first append: refused, and nothing is created.
    const creating = await patch(id, { identifierPolicy: "custom" });
    expect(creating.status).toBe(400);
    expect(creating.body).toMatchObject({
      error: { code: "invalid_options", details: { setting: "identifierInstructions" } },
    });
    expect(JSON.stringify(creating.body)).toContain("in the same PATCH");
    expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(404);

    await append(id, { messages: conversation(1) });
    const both = await patch(id, {
      identifierPolicy: "custom",
      identifierInstructions: "Keep ticket ids such as OPS-1234 exact.",
    });
    expect(both.status).toBe(200);
    // The whole effective settings are checked: taking the instructions away alone is refused.
    const removing = await patch(id, { identifierInstructions: null });
    expect(removing.status).toBe(400);
    expect(removing.body).toMatchObject({
      error: { code: "invalid_options", details: { setting: "identifierInstructions" } },
    });
    // A summarizer model the summarizer cannot be built with.
    const blank = await patch(id, { summarizerModel: "   " });
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({
      error: { code: "invalid_options", details: { setting: "summarizerModel" } },
    });
    expect((await status(id)).settings).toMatchObject({
      identifierPolicy: "custom",
      identifierInstructions: "Keep ticket ids such as OPS-1234 exact.",
      summarizerModel: null,
    });
    // Switching the policy away makes the instructions optional again.
    expect(
      (await patch(id, { identifierPolicy: "off", identifierInstructions: null })).status,
    ).toBe(200);
  });
});

describe("a compaction that throws", () => {
  it("falls back to the deterministic tier for a manual compaction (invalid stored settings), and shows the failure", async () => {
    const id = await crossedSession();
    await breakSettings(id, { identifierPolicy: "custom" });
    const manual = await call<ManualCompactResponseBody>("POST", `/v1/sessions/${id}/compact`, {
      body: {},
    });
    expect(manual.status).toBe(200);
    expect(manual.body.compacted).toBe(true);
    expect(manual.body.event).toMatchObject({ tier: 4, fallback: { failedAttempts: 1 } });
    expect(manual.body.event?.fallback?.error).toContain("identifierInstructions");
    const [event] = await compactions(id);
    expect(event?.fallback).toEqual(manual.body.event?.fallback);
    const after = await status(id);
    expect(after.compaction.failure).toMatchObject({ failedAttempts: 1, nextAttemptAt: null });
    expect(after.compaction.failure?.message).toContain("identifierInstructions");
    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(validateMessages(context.body.messages as never, "openai").problems).toEqual([]);
  });

  it("falls back for a manual compaction when the summarizer configuration throws", async () => {
    const id = await crossedSession();
    // The LLM summarizer is configured in the tests; a blank model makes building it throw.
    await breakSettings(id, { summarizerModel: "   " });
    const manual = await call<ManualCompactResponseBody>("POST", `/v1/sessions/${id}/compact`, {
      body: {},
    });
    expect(manual.status).toBe(200);
    expect(manual.body.event).toMatchObject({ tier: 4, summarizer: "extractive" });
    expect(manual.body.event?.fallback?.error).toContain("model");
  });

  it("falls back for an overflow report and for a context over its budget, instead of a 500 or no compaction", async () => {
    const id = freshSession();
    await createSmallSession(id);
    // Over window − reserve: GET /context has to compact before it answers.
    await append(id, { messages: conversation(20).slice(2) });
    await breakSettings(id, { identifierPolicy: "custom" });
    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(context.status).toBe(200);
    expect(context.body.compaction.waited).toBe(true);
    expect(context.body.tokens).toBeLessThanOrEqual(context.body.budget);
    expect((await compactions(id))[0]?.fallback?.failedAttempts).toBe(1);

    await append(id, { messages: conversation(26).slice(42) });
    const overflow = await call<OverflowResponseBody>("POST", `/v1/sessions/${id}/overflow`, {
      body: {
        error: { status: 400, message: "This model's maximum context length is 16000 tokens." },
      },
    });
    expect(overflow.status).toBe(200);
    expect(overflow.body.passes).toBeGreaterThanOrEqual(1);
    const history = await compactions(id);
    expect(history).toHaveLength(2);
    expect(history[1]).toMatchObject({ trigger: "overflow", fallback: { failedAttempts: 2 } });
  });

  it("retries a failing background compaction with backoff, then falls back; the status shows it until the settings are fixed", async () => {
    const id = await crossedSession();
    await breakSettings(id, { identifierPolicy: "custom" });
    const stub = stubFor("alice", id);
    const alarmAt = () => runInDurableObject(stub, (_instance, state) => state.storage.getAlarm());

    // Times by the object's clock, moved on to when each attempt is due.
    const before = await moveClockToDue(stub);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const first = await status(id);
    expect(first.compaction).toMatchObject({
      status: "scheduled",
      failure: { failedAttempts: 1 },
    });
    const retry = Date.parse(first.compaction.failure?.nextAttemptAt ?? "");
    expect(retry).toBeGreaterThan(Date.now());
    expect(await alarmAt()).toBe(retry);
    expect(await compactions(id)).toHaveLength(0);
    // An alarm sooner than the retry (fired for something else) leaves it until its backoff ends.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await status(id)).compaction.failure?.failedAttempts).toBe(1);
    expect(await alarmAt()).toBe(retry);

    expect(await runAlarmWhenDue(stub)).toBe(true);
    const after = await sessionNow(stub);
    const second = await status(id);
    expect(second.compaction.failure?.failedAttempts).toBe(2);
    // Backoff: the second wait is longer than the first.
    const secondWait = Date.parse(second.compaction.failure?.nextAttemptAt ?? "") - after;
    expect(secondWait).toBeGreaterThan(retry - before);

    expect(await runAlarmWhenDue(stub)).toBe(true);
    const history = await compactions(id);
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      trigger: "append",
      tier: 4,
      fallback: { failedAttempts: 3 },
    });
    const third = await status(id);
    expect(third.compaction).toMatchObject({
      status: "none",
      failure: { failedAttempts: 3, nextAttemptAt: null },
    });
    expect(third.contextTokens).toBeLessThan(history[0]?.tokensBefore ?? 0);
    expect(await runAlarmWhenDue(stub)).toBe(false);

    // Fixing the settings clears the failure.
    expect((await patch(id, { identifierInstructions: "Keep OPS ids exact." })).status).toBe(200);
    expect((await status(id)).compaction.failure).toBeNull();
  });
});
