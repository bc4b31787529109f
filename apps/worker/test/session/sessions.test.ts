/**
 * The session routes end to end: append, context in every format, status,
 * settings, transcript, tool outputs, compactions, delete, idempotency and
 * cross-user isolation.
 */

import {
  env,
  evictDurableObject,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { messageTokens } from "@condense/core";
import { describe, expect, it } from "vitest";
import type {
  CompactionsResponseBody,
  ContextResponseBody,
  ErrorResponseBody,
  ManualCompactResponseBody,
  SessionStatusBody,
  ToolOutputResponseBody,
  TranscriptResponseBody,
} from "../../src/api/schemas";
import { readSnapshot } from "../../src/session/context/snapshot";
import { MessageStore } from "../../src/session/store/message-store";
import { readSession } from "../../src/session/store/session-record";
import { sessionScope } from "../../src/session/store/session-scope";
import { modelFor, readSettings } from "../../src/session/store/settings";
import {
  append,
  call,
  conversation,
  createSmallSession,
  freshSession,
  stubFor,
  toolStep,
  transcript,
} from "../support/helpers";

describe("append and read", () => {
  it("creates the session on first append and counts tokens", async () => {
    const id = freshSession();
    const first = await append(id, { messages: conversation(1), model: "gpt-4o" });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      sessionId: id,
      appended: 4,
      firstSeq: 1,
      lastSeq: 4,
      messageCount: 4,
      contextWindow: 128_000,
      warningLevel: "none",
      compaction: { status: "none" },
    });
    expect(first.body.tokens).toBeGreaterThan(100);
    // The cost policy's floor, half the window: where compaction may start.
    expect(first.body.threshold).toBe(64_000);

    const second = await append(id, { messages: toolStep(2) });
    expect(second.body).toMatchObject({ appended: 2, firstSeq: 5, lastSeq: 6, messageCount: 6 });
    expect(second.body.tokens).toBeGreaterThan(first.body.tokens);

    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(context.status).toBe(200);
    expect(context.body.format).toBe("openai");
    expect(context.body.messages).toEqual([...conversation(1), ...toolStep(2)]);
    expect(context.body.tokens).toBe(second.body.tokens);
    expect(context.body).toMatchObject({
      coveredSeq: 0,
      lastSeq: 6,
      summary: null,
      compaction: { waited: false },
    });
  });

  it("converts appends and context between formats", async () => {
    const id = freshSession();
    const anthropic = {
      format: "anthropic",
      system: "Be brief.",
      messages: [
        { role: "user", content: "list the files" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Listing." },
            { type: "tool_use", id: "toolu_1", name: "ls", input: { path: "." } },
          ],
        },
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "a.txt\nb.txt" }],
        },
      ],
    };
    expect((await append(id, anthropic)).status).toBe(200);

    const openai = await call<ContextResponseBody>(
      "GET",
      `/v1/sessions/${id}/context?format=openai`,
    );
    expect(openai.body.messages).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "list the files" },
      {
        role: "assistant",
        content: [{ type: "text", text: "Listing." }],
        tool_calls: [
          { id: "toolu_1", type: "function", function: { name: "ls", arguments: '{"path":"."}' } },
        ],
      },
      { role: "tool", tool_call_id: "toolu_1", content: "a.txt\nb.txt" },
    ]);

    const back = await call<ContextResponseBody>(
      "GET",
      `/v1/sessions/${id}/context?format=anthropic`,
    );
    expect(back.body.system).toBeDefined();
    expect(JSON.stringify(back.body.system)).toContain("Be brief.");
    expect(back.body.messages[0]).toMatchObject({ role: "user" });
    expect(JSON.stringify(back.body.messages)).toContain("tool_result");

    const responses = await call<ContextResponseBody>(
      "GET",
      `/v1/sessions/${id}/context?format=responses`,
    );
    expect(JSON.stringify(responses.body.messages)).toContain("function_call_output");

    const unknown = await call("GET", `/v1/sessions/${id}/context?format=gemini`);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: { code: "unknown_format" } });
  });

  it("serves no aborted turn and no tool id Anthropic rejects, while the transcript keeps them as appended", async () => {
    const id = freshSession();
    const callId = "call_7|fc_0a1b";
    const messages = [
      { role: "user", content: "fix the build" },
      { role: "assistant", content: null }, // aborted
      { role: "user", content: "continue" },
      { role: "assistant", content: "" }, // aborted again
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: callId, type: "function", function: { name: "ls", arguments: '{"path":"."}' } },
        ],
      },
      { role: "tool", tool_call_id: callId, content: "a.txt" },
    ];
    expect((await append(id, { messages })).status).toBe(200);

    const openai = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    const served = openai.body.messages as Array<{ role: string; content: unknown }>;
    expect(served.map((m) => m.role)).toEqual(["user", "user", "assistant", "tool"]);

    const anthropic = await call<ContextResponseBody>(
      "GET",
      `/v1/sessions/${id}/context?format=anthropic`,
    );
    const turns = anthropic.body.messages as Array<{ role: string; content: unknown }>;
    expect(turns.map((t) => t.role)).toEqual(["user", "assistant", "user"]);
    const ids = JSON.stringify(turns).match(/"(?:id|tool_use_id)":"[^"]*"/g) ?? [];
    expect(ids).toHaveLength(2);
    for (const found of ids) expect(found).toMatch(/^"(?:id|tool_use_id)":"[a-zA-Z0-9_-]+"$/);

    const stored = await call<TranscriptResponseBody>("GET", `/v1/sessions/${id}/transcript`);
    expect(stored.body.messages).toHaveLength(6);
  });

  it("pages through the transcript", async () => {
    const id = freshSession();
    const messages = conversation(5);
    await append(id, { messages });
    const first = await call<TranscriptResponseBody>(
      "GET",
      `/v1/sessions/${id}/transcript?limit=5`,
    );
    expect(first.body.messages.map((entry) => entry.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(first.body.nextAfter).toBe(5);
    const rest = await call<TranscriptResponseBody>(
      "GET",
      `/v1/sessions/${id}/transcript?after=5&limit=100`,
    );
    expect(rest.body.messages.map((entry) => entry.seq)).toEqual([6, 7, 8, 9, 10, 11, 12]);
    expect(rest.body.nextAfter).toBeNull();
    expect([...first.body.messages, ...rest.body.messages].map((entry) => entry.message)).toEqual(
      messages,
    );
    const bad = await call("GET", `/v1/sessions/${id}/transcript?limit=0`);
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: "invalid_request" } });
  });

  it("answers 404 on every route but append and PATCH for a session that does not exist", async () => {
    const id = freshSession();
    for (const [method, path, body] of [
      ["GET", `/v1/sessions/${id}`],
      ["GET", `/v1/sessions/${id}/context`],
      ["GET", `/v1/sessions/${id}/compactions`],
      ["GET", `/v1/sessions/${id}/transcript`],
      ["GET", `/v1/sessions/${id}/tool-outputs/call_1`],
      ["POST", `/v1/sessions/${id}/compact`],
      [
        "POST",
        `/v1/sessions/${id}/overflow`,
        { error: { status: 400, message: "maximum context length exceeded" } },
      ],
      ["DELETE", `/v1/sessions/${id}`],
    ] as const) {
      const reply = await call(method, path, body !== undefined ? { body } : {});
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body).toMatchObject({ error: { code: "not_found" } });
    }
    // None of them created it.
    expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(404);
  });

  it("creates a session configured by PATCH before its first append", async () => {
    const id = freshSession();
    // A bad PATCH changes nothing, so it creates nothing either.
    expect((await call("PATCH", `/v1/sessions/${id}`, { body: { threshold: 3 } })).status).toBe(
      400,
    );
    expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(404);

    const patched = await call<SessionStatusBody>("PATCH", `/v1/sessions/${id}`, {
      body: { model: "acme-local-13b", contextWindow: "24k", threshold: 0.5 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      sessionId: id,
      messageCount: 0,
      contextTokens: 0,
      model: "acme-local-13b",
      contextWindow: 24_000,
      settings: { model: "acme-local-13b", contextWindow: 24_000, threshold: 0.5 },
    });
    const empty = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(empty.status).toBe(200);
    expect(empty.body.messages).toEqual([]);

    // The first append finds the settings in place: its window and trigger are the configured ones.
    const first = await append(id, { messages: conversation(1) });
    expect(first.body).toMatchObject({
      firstSeq: 1,
      messageCount: conversation(1).length,
      contextWindow: 24_000,
      threshold: 12_000,
    });
  });
});

describe("settings and status", () => {
  it("changes settings, resets them with null, and reports status", async () => {
    const id = freshSession();
    await append(id, { messages: conversation(1), model: "claude-sonnet-4-5" });
    const patched = await call<SessionStatusBody>("PATCH", `/v1/sessions/${id}`, {
      body: {
        contextWindow: "64k",
        threshold: 0.6,
        identifierPolicy: "off",
        pinned: [{ role: "user", content: "Always answer in French." }],
        summarizerModel: "my-summarizer",
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.settings).toMatchObject({
      contextWindow: 64_000,
      threshold: 0.6,
      identifierPolicy: "off",
      summarizerModel: "my-summarizer",
      strategy: "local",
      pinned: [{ role: "user", content: "Always answer in French." }],
    });
    expect(patched.body.contextWindow).toBe(64_000);
    expect(patched.body.model).toBe("claude-sonnet-4-5");

    // Pinned messages come right after the system message.
    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(context.body.messages.slice(0, 3)).toEqual([
      conversation(0)[0],
      { role: "user", content: "Always answer in French." },
      conversation(0)[1],
    ]);

    const reset = await call<SessionStatusBody>("PATCH", `/v1/sessions/${id}`, {
      body: { contextWindow: null, pinned: null, model: "gpt-4o" },
    });
    expect(reset.body.settings.contextWindow).toBeNull();
    expect(reset.body.settings.pinned).toEqual([]);
    expect(reset.body.contextWindow).toBe(128_000);
    expect(reset.body.model).toBe("gpt-4o");

    const badPin = await call("PATCH", `/v1/sessions/${id}`, {
      body: { pinned: [{ role: "tool", tool_call_id: "x", content: "no" }] },
    });
    expect(badPin.status).toBe(400);
    const badThreshold = await call<{ error: { details: { issues: Array<{ path: string }> } } }>(
      "PATCH",
      `/v1/sessions/${id}`,
      { body: { threshold: 3 } },
    );
    expect(badThreshold.status).toBe(400);
    expect(badThreshold.body.error.details.issues[0]?.path).toBe("threshold");
    const unknownField = await call("PATCH", `/v1/sessions/${id}`, { body: { colour: "blue" } });
    expect(unknownField.status).toBe(400);
  });

  it("sets the compaction policy and its floor per session, and refuses bad ones by name, changing nothing", async () => {
    const id = freshSession();
    await append(id, { messages: conversation(4), model: "gpt-4o" });
    await call("PATCH", `/v1/sessions/${id}`, { body: { contextWindow: 32_000 } });
    // Where compaction may start, as an append reports it.
    const trigger = async () =>
      (await append(id, { messages: [{ role: "user", content: "go on" }] })).body.threshold;
    // The cost policy at 32k: it may start at the floor (half the window).
    const cost = await call<SessionStatusBody>("GET", `/v1/sessions/${id}`);
    expect(cost.body.settings).toMatchObject({ policy: null, floor: null });
    expect(await trigger()).toBe(16_000);
    const set = await call<SessionStatusBody>("PATCH", `/v1/sessions/${id}`, {
      body: { policy: "cost", floor: 0.6 },
    });
    expect(set.status).toBe(200);
    expect(set.body.settings).toMatchObject({ policy: "cost", floor: 0.6 });
    expect(await trigger()).toBe(19_200);
    // The window policy's trigger is its threshold (0.75 × the window), whatever the floor.
    await call("PATCH", `/v1/sessions/${id}`, { body: { policy: "window" } });
    expect(await trigger()).toBe(24_000);
    for (const [body, path] of [
      [{ policy: "cheap" }, "policy"],
      [{ floor: 1.5 }, "floor"],
      [{ floor: "half" }, "floor"],
    ] as const) {
      const reply = await call<ErrorResponseBody>("PATCH", `/v1/sessions/${id}`, { body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error).toMatchObject({
        code: "invalid_request",
        details: { issues: [{ path }] },
      });
    }
    // A floor under an explicit threshold is the engine's refusal, naming the setting.
    const under = await call<ErrorResponseBody>("PATCH", `/v1/sessions/${id}`, {
      body: { policy: "cost", threshold: 0.7, floor: 0.5 },
    });
    expect(under.status).toBe(400);
    expect(under.body.error).toMatchObject({
      code: "invalid_options",
      details: { setting: "floor" },
    });
    const after = await call<SessionStatusBody>("GET", `/v1/sessions/${id}`);
    expect(after.body.settings).toMatchObject({ policy: "window", floor: 0.6, threshold: null });
  });

  it("refuses a pinned message that carries nothing, naming it, and changes nothing", async () => {
    const id = freshSession();
    await append(id, { messages: [{ role: "user", content: "hi" }] });
    const rules = { role: "system", content: "rules" };
    for (const [empty, at] of [
      [{ role: "developer", content: "" }, 1],
      [{ role: "system", content: "  \n" }, 1],
      [{ role: "assistant", content: null }, 1],
      [{ role: "user", content: [{ type: "text", text: "" }] }, 1],
    ] as const) {
      const reply = await call<ErrorResponseBody>("PATCH", `/v1/sessions/${id}`, {
        body: { pinned: [rules, empty, { role: "user", content: "more" }] },
      });
      expect(reply.status, JSON.stringify(empty)).toBe(400);
      expect(reply.body.error).toMatchObject({
        code: "invalid_request",
        details: { in: "body", issues: [{ path: `pinned[${at}]` }] },
      });
    }
    const status = await call<SessionStatusBody>("GET", `/v1/sessions/${id}`);
    expect(status.body.settings.pinned).toEqual([]);
    for (const format of ["openai", "anthropic"]) {
      const context = await call<ContextResponseBody>(
        "GET",
        `/v1/sessions/${id}/context?format=${format}`,
      );
      expect(context.body.messages).toEqual([{ role: "user", content: "hi" }]);
    }
  });

  it("recounts the stored tokens when the model changes, by PATCH or by append", async () => {
    const messages = conversation(6);
    const claude = freshSession();
    await append(claude, { messages, model: "claude-sonnet-4-5" });
    const expected = await call<SessionStatusBody>("GET", `/v1/sessions/${claude}`);
    const expectedCounts = (await transcript(claude)).map((row) => row.tokens);

    const id = freshSession();
    const before = await append(id, { messages, model: "gpt-4o" });
    // Claude is estimated with o200k plus a 15% margin, so its counts are higher.
    expect(expected.body.contextTokens).toBeGreaterThan(Math.floor(before.body.tokens * 1.14));
    const patched = await call<SessionStatusBody>("PATCH", `/v1/sessions/${id}`, {
      body: { model: "claude-sonnet-4-5", tailTokens: 300 },
    });
    expect(patched.body.contextTokens).toBe(expected.body.contextTokens);
    expect(patched.body.transcriptTokens).toBe(expected.body.transcriptTokens);
    expect((await transcript(id)).map((row) => row.tokens)).toEqual(expectedCounts);
    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(context.body.tokens).toBe(expected.body.contextTokens);

    // A compaction starts from the new counts, and its view is recounted on the next change.
    const compacted = await call<ManualCompactResponseBody>("POST", `/v1/sessions/${id}/compact`, {
      body: {},
    });
    expect(compacted.body.compacted).toBe(true);
    expect(compacted.body.event?.tokensBefore).toBe(expected.body.contextTokens);
    const viewClaude = compacted.body.tokens;
    const back = await call<SessionStatusBody>("PATCH", `/v1/sessions/${id}`, {
      body: { model: null },
    });
    expect(back.body.model).toBe("gpt-4o");
    expect(back.body.transcriptTokens).toBe(before.body.tokens);
    expect(back.body.contextTokens).toBeLessThan(viewClaude);

    // An append naming another model (no model setting) recounts as well.
    const switched = await append(id, {
      messages: [{ role: "user", content: "next" }],
      model: "claude-sonnet-4-5",
    });
    expect(switched.body.tokens).toBe(
      viewClaude + messageTokens({ role: "user", content: "next" }, "claude-sonnet-4-5"),
    );
  });

  it("keeps a stored count for each message of the context that is its count for the session's model", async () => {
    /** The snapshot a compaction starts from: its stored counts beside the messages counted afresh. */
    const counts = (id: string) =>
      runInDurableObject(stubFor("alice", id), (_instance, state) => {
        const sql = state.storage.sql;
        const session = readSession(sql);
        if (session === undefined) throw new Error(`no session ${id}`);
        const model = modelFor(readSettings(sql), session.lastModel, env.DEFAULT_MODEL);
        const snapshot = readSnapshot(
          sessionScope(() => state.storage, new MessageStore(sql), env.DEFAULT_MODEL),
          session,
        );
        return {
          model,
          viewLength: snapshot.messages.length - snapshot.tail.length,
          stored: snapshot.tokenCounts,
          counted: snapshot.messages.map((message) => messageTokens(message, model)),
        };
      });
    const expectOwnCounts = async (id: string, model: string, viewCounted: boolean) => {
      const { stored, counted, viewLength, ...rest } = await counts(id);
      expect(rest.model).toBe(model);
      expect(stored).toHaveLength(counted.length);
      // A count is stored for every message but those of a view of OpenAI items.
      expect(stored.map((count, i) => (count === null ? i : -1)).filter((i) => i >= 0)).toEqual(
        viewCounted ? [] : Array.from({ length: viewLength }, (_, i) => i),
      );
      expect(stored.map((count, i) => count ?? counted[i])).toEqual(counted);
      return viewLength;
    };

    const id = freshSession();
    await append(id, { messages: conversation(8), model: "gpt-4o" });
    await call("PATCH", `/v1/sessions/${id}`, { body: { tailTokens: 2_000 } });
    await expectOwnCounts(id, "gpt-4o", true);
    await call("POST", `/v1/sessions/${id}/compact`, { body: {} });
    await append(id, { messages: toolStep(20) });
    expect(await expectOwnCounts(id, "gpt-4o", true)).toBeGreaterThan(0);
    // Another model, by an append that names it and by the model setting: the view and the
    // transcript are recounted, and a compaction stores the new model's counts.
    await append(id, { messages: toolStep(21), model: "claude-sonnet-4-5" });
    await expectOwnCounts(id, "claude-sonnet-4-5", true);
    await call("PATCH", `/v1/sessions/${id}`, { body: { model: "gemini-2.5-pro" } });
    await expectOwnCounts(id, "gemini-2.5-pro", true);
    await call("POST", `/v1/sessions/${id}/compact`, { body: {} });
    await append(id, { messages: toolStep(22) });
    await expectOwnCounts(id, "gemini-2.5-pro", true);

    // A view of OpenAI items stores counts of the items, not of the messages they read as.
    const openai = freshSession();
    await append(openai, { messages: conversation(4), model: "gpt-4o" });
    await call("PATCH", `/v1/sessions/${openai}`, { body: { strategy: "openai" } });
    const reply = await call<ManualCompactResponseBody>("POST", `/v1/sessions/${openai}/compact`, {
      body: {},
    });
    expect(reply.body.event?.strategy).toBe("openai");
    await append(openai, { messages: [{ role: "user", content: "after the OpenAI compaction" }] });
    expect(await expectOwnCounts(openai, "gpt-4o", false)).toBeGreaterThan(0);
  });

  it("calibrates the estimate of non-OpenAI models from reported usage", async () => {
    const id = freshSession();
    const first = await append(id, { messages: conversation(3), model: "claude-sonnet-4-5" });
    const estimate = first.body.tokens;
    // The provider counted 30% more than our estimate for that prompt.
    const second = await append(id, {
      messages: [{ role: "user", content: "next" }],
      usage: { inputTokens: Math.round(estimate * 1.3) },
    });
    const status = await call<SessionStatusBody>("GET", `/v1/sessions/${id}`);
    expect(status.body.calibration.samples).toBe(1);
    expect(status.body.calibration.ratio).toBeCloseTo(1.3, 1);
    expect(second.body.tokens).toBeGreaterThan(Math.round(estimate * 1.25));

    // OpenAI models are counted exactly and never calibrated.
    const exact = freshSession();
    const base = await append(exact, { messages: conversation(3), model: "gpt-4o" });
    await append(exact, {
      messages: [{ role: "user", content: "next" }],
      usage: { inputTokens: base.body.tokens * 2 },
    });
    const exactStatus = await call<SessionStatusBody>("GET", `/v1/sessions/${exact}`);
    expect(exactStatus.body.calibration).toEqual({ ratio: 1, samples: 0 });

    // A ratio measured for one model says nothing about another: a model change starts afresh.
    const switched = await call<SessionStatusBody>("PATCH", `/v1/sessions/${id}`, {
      body: { model: "gemini-2.5-pro" },
    });
    expect(switched.body.calibration).toEqual({ ratio: 1, samples: 0 });
  });
});

describe("idempotency", () => {
  it("returns the first answer for a retry and 409 for a different body", async () => {
    const id = freshSession();
    // No tool calls: the same body appended again under a new key must be storable twice.
    const body = {
      messages: [
        ...conversation(0),
        { role: "assistant", content: "On it." },
        { role: "user", content: "Go on." },
      ],
    };
    const headers = { "Idempotency-Key": "append-1" };
    const first = await append(id, body, "alice", headers);
    const retry = await append(id, body, "alice", headers);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    const status = await call<SessionStatusBody>("GET", `/v1/sessions/${id}`);
    expect(status.body.messageCount).toBe(4);

    const conflict = await append(id, { messages: toolStep(9) }, "alice", headers);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ error: { code: "idempotency_conflict" } });
    expect((await call<SessionStatusBody>("GET", `/v1/sessions/${id}`)).body.messageCount).toBe(4);

    // A new key appends again.
    const next = await append(id, body, "alice", { "Idempotency-Key": "append-2" });
    expect(next.body.lastSeq).toBe(8);
  });

  it("refuses a malformed Idempotency-Key as invalid_request naming the header, changing nothing", async () => {
    const id = freshSession();
    await append(id, { messages: conversation(1) });
    const before = await call<SessionStatusBody>("GET", `/v1/sessions/${id}`);
    for (const key of ["k".repeat(256), "has space", "ü"]) {
      const headers = { "Idempotency-Key": key };
      for (const [path, body] of [
        ["messages", { messages: [{ role: "user", content: "more" }] }],
        ["compact", {}],
      ] as const) {
        const reply = await call("POST", `/v1/sessions/${id}/${path}`, { body, headers });
        expect(reply.status, `${path} with ${JSON.stringify(key)}`).toBe(400);
        expect(reply.body).toMatchObject({
          error: {
            code: "invalid_request",
            details: { in: "header", issues: [{ path: "Idempotency-Key" }] },
          },
        });
      }
    }
    expect((await call<SessionStatusBody>("GET", `/v1/sessions/${id}`)).body).toEqual(before.body);
  });

  it("replays an append after the object was evicted: the records live in its storage", async () => {
    const id = freshSession();
    const body = { messages: conversation(1) };
    const headers = { "Idempotency-Key": "append-before-eviction" };
    const first = await append(id, body, "alice", headers);
    expect(first.status).toBe(200);
    await evictDurableObject(stubFor("alice", id));

    const retry = await append(id, body, "alice", headers);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect((await call<SessionStatusBody>("GET", `/v1/sessions/${id}`)).body.messageCount).toBe(4);
    const conflict = await append(id, { messages: toolStep(2) }, "alice", headers);
    expect(conflict.status).toBe(409);
    // Keys belong to a session: the same key on another session (or user) is a new request.
    const elsewhere = await append(freshSession(), body, "alice", headers);
    expect(elsewhere.body).toMatchObject({ firstSeq: 1, messageCount: 4 });
  });

  it("keeps an append and its answer together, so a retry after a failure appends nothing twice", async () => {
    const id = freshSession();
    await createSmallSession(id);
    // This append crosses the trigger, and setting its alarm fails once, after the messages are stored.
    await runInDurableObject(stubFor("alice", id), (_instance, state) => {
      const setAlarm = state.storage.setAlarm.bind(state.storage);
      let failures = 1;
      state.storage.setAlarm = (...args: Parameters<typeof setAlarm>) => {
        if (failures-- > 0) throw new Error("scripted storage failure");
        return setAlarm(...args);
      };
    });
    const body = { messages: conversation(20).slice(2) };
    const headers = { "Idempotency-Key": "append-then-fail" };
    const failed = await append(id, body, "alice", headers);
    expect(failed.status).toBe(500);

    const retry = await append(id, body, "alice", headers);
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ firstSeq: 3, lastSeq: 42, messageCount: 42 });
    const status = await call<SessionStatusBody>("GET", `/v1/sessions/${id}`);
    expect(status.body.messageCount).toBe(42);
  });

  it("commits a manual compaction with its answer, so a retry after a crash right after it compacts nothing twice", async () => {
    const id = freshSession();
    await createSmallSession(id);
    await append(id, { messages: conversation(12).slice(2) });
    // The object fails once right after the transaction that commits a compaction, as an eviction would.
    await runInDurableObject(stubFor("alice", id), (_instance, state) => {
      const storage = state.storage;
      const transactionSync = storage.transactionSync.bind(storage);
      const committed = () =>
        storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM condense_compactions").one().n;
      let failures = 1;
      storage.transactionSync = <T>(closure: () => T): T => {
        const before = committed();
        const result = transactionSync(closure);
        if (failures > 0 && committed() > before) {
          failures--;
          throw new Error("scripted failure right after the commit");
        }
        return result;
      };
    });
    const headers = { "Idempotency-Key": "compact-then-fail" };
    const failed = await call("POST", `/v1/sessions/${id}/compact`, { body: {}, headers });
    expect(failed.status).toBe(500);

    const retry = await call<ManualCompactResponseBody>("POST", `/v1/sessions/${id}/compact`, {
      body: {},
      headers,
    });
    expect(retry.status).toBe(200);
    const history = await call<CompactionsResponseBody>("GET", `/v1/sessions/${id}/compactions`);
    expect(history.body.compactions).toHaveLength(1);
    expect(retry.body).toMatchObject({ compacted: true, event: history.body.compactions[0] });
  });

  it("makes manual compaction retries safe", async () => {
    const id = freshSession();
    await createSmallSession(id);
    await append(id, { messages: conversation(12).slice(2) });
    const headers = { "Idempotency-Key": "compact-1" };
    const first = await call<ManualCompactResponseBody>("POST", `/v1/sessions/${id}/compact`, {
      body: {},
      headers,
    });
    expect(first.status).toBe(200);
    expect(first.body.compacted).toBe(true);
    const retry = await call<ManualCompactResponseBody>("POST", `/v1/sessions/${id}/compact`, {
      body: {},
      headers,
    });
    expect(retry.body).toEqual(first.body);
    const history = await call<CompactionsResponseBody>("GET", `/v1/sessions/${id}/compactions`);
    expect(history.body.compactions).toHaveLength(1);
    const conflict = await call("POST", `/v1/sessions/${id}/compact`, {
      body: { focus: "tests" },
      headers,
    });
    expect(conflict.status).toBe(409);
  });
});

describe("cross-user isolation", () => {
  it("keeps one user's session out of every other user's reach", async () => {
    const id = freshSession();
    await append(id, { messages: conversation(2) }, "alice");
    const routes: Array<[string, string, unknown?]> = [
      ["GET", `/v1/sessions/${id}`],
      ["GET", `/v1/sessions/${id}/context`],
      ["GET", `/v1/sessions/${id}/compactions`],
      ["GET", `/v1/sessions/${id}/transcript`],
      ["GET", `/v1/sessions/${id}/tool-outputs/call_1`],
      ["POST", `/v1/sessions/${id}/compact`, {}],
      [
        "POST",
        `/v1/sessions/${id}/overflow`,
        { error: { status: 400, message: "maximum context length exceeded" } },
      ],
      ["DELETE", `/v1/sessions/${id}`],
    ];
    for (const [method, path, body] of routes) {
      const reply = await call(method, path, {
        as: "bob",
        ...(body !== undefined ? { body } : {}),
      });
      expect(reply.status, `${method} ${path}`).toBe(404);
    }
    // Bob configuring and appending to "the same" id creates his own, separate session.
    const bobsSettings = await call<SessionStatusBody>("PATCH", `/v1/sessions/${id}`, {
      as: "bob",
      body: { threshold: 0.5 },
    });
    expect(bobsSettings.body).toMatchObject({ messageCount: 0, settings: { threshold: 0.5 } });
    const bobs = await append(id, { messages: [{ role: "user", content: "bob was here" }] }, "bob");
    expect(bobs.body).toMatchObject({ messageCount: 1, firstSeq: 1 });

    const alice = await call<SessionStatusBody>("GET", `/v1/sessions/${id}`, { as: "alice" });
    expect(alice.body.messageCount).toBe(6);
    expect(alice.body.settings.threshold).toBeNull();
    const aliceContext = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`, {
      as: "alice",
    });
    expect(JSON.stringify(aliceContext.body.messages)).not.toContain("bob was here");
  });
});

describe("tool outputs", () => {
  it("round-trips a 4 MiB tool output byte for byte, through chunked storage", async () => {
    const id = freshSession();
    // Multi-byte characters and a surrogate pair near every chunk boundary.
    const unit = 'résumé 🚀 данные "quoted" \\ line\n';
    const unitBytes = new TextEncoder().encode(unit).length;
    const size = 4 * 1024 * 1024;
    const repeats = Math.floor(size / unitBytes);
    const output = unit.repeat(repeats) + "z".repeat(size - repeats * unitBytes);
    expect(new TextEncoder().encode(output).length).toBe(size);
    // A window that holds its ~1.07M tokens, so the context can serve it whole too.
    await call("PATCH", `/v1/sessions/${id}`, { body: { contextWindow: "2m" } });
    const step = toolStep(1);
    const reply = await append(id, {
      messages: [
        conversation(0)[1],
        step[0],
        { role: "tool", tool_call_id: "call_1", content: output },
      ],
    });
    expect(reply.status).toBe(200);

    const stored = await call<ToolOutputResponseBody>(
      "GET",
      `/v1/sessions/${id}/tool-outputs/call_1`,
    );
    expect(stored.status).toBe(200);
    expect(stored.body.content === output).toBe(true);
    // The same bytes come back through the transcript and the context (uncompacted: it fits).
    const page = await call<TranscriptResponseBody>("GET", `/v1/sessions/${id}/transcript?after=2`);
    expect(page.body.messages.map((entry) => entry.seq)).toEqual([3]);
    expect(page.body.messages[0]?.message.content === output).toBe(true);
    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(context.body.coveredSeq).toBe(0);
    expect(
      (context.body.messages.at(-1) as { content?: unknown } | undefined)?.content === output,
    ).toBe(true);
    expect(stored.body).toMatchObject({
      toolCallId: "call_1",
      toolName: "read_file",
      seq: 3,
      pruned: false,
    });

    const chunks = await runInDurableObject(
      stubFor("alice", id),
      (_instance, state) =>
        state.storage.sql
          .exec<{ n: number }>(
            "SELECT COUNT(*) AS n FROM condense_chunks WHERE owner = 't' AND id = 3",
          )
          .one().n,
    );
    expect(chunks).toBeGreaterThanOrEqual(3);

    const missing = await call("GET", `/v1/sessions/${id}/tool-outputs/call_404`);
    expect(missing.status).toBe(404);
  });
});

describe("delete", () => {
  it("deletes everything and lets the id start over", async () => {
    const id = freshSession();
    await append(id, { messages: conversation(2) });
    const deleted = await call("DELETE", `/v1/sessions/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ sessionId: id, deleted: true, messageCount: 6 });
    expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(404);
    expect((await call("GET", `/v1/sessions/${id}/tool-outputs/call_1`)).status).toBe(404);
    const again = await append(id, { messages: [{ role: "user", content: "fresh start" }] });
    expect(again.body).toMatchObject({ firstSeq: 1, messageCount: 1 });
  });

  it("answers a retried DELETE with the first answer until its tombstone expires", async () => {
    const id = freshSession();
    await append(id, { messages: conversation(1) });
    const first = await call("DELETE", `/v1/sessions/${id}`);
    const retry = await call("DELETE", `/v1/sessions/${id}`);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    // Only DELETE sees the tombstone: the session itself is gone.
    expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(404);
    expect((await call("DELETE", `/v1/sessions/${freshSession()}`)).status).toBe(404);

    // The tombstone's alarm, early, keeps it; once it expired, it leaves the object empty.
    const stub = stubFor("alice", id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await call("DELETE", `/v1/sessions/${id}`)).status).toBe(200);
    await runInDurableObject(stub, async (_instance, state) => {
      const tombstone = await state.storage.get<{ expiresAt: number }>("condense_deleted");
      await state.storage.put("condense_deleted", { ...tombstone, expiresAt: Date.now() - 1 });
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(
      await runInDurableObject(stub, (_instance, state) => state.storage.get("condense_deleted")),
    ).toBeUndefined();
    expect((await call("DELETE", `/v1/sessions/${id}`)).status).toBe(404);
  });
});
