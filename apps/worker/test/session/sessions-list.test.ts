/**
 * @module test/session/sessions-list
 * `GET /v1/sessions`: the caller's sessions as their objects report them to
 * the user's object. A new session is listed as soon as its first append (or
 * PATCH) answers; later appends and compactions arrive coalesced (the test
 * config reports every 50 ms, so they are waited for); a deleted session is
 * gone when DELETE answers. Pages are newest active first, by a cursor that
 * neither repeats nor skips while sessions are created; another user's
 * sessions are never listed.
 */

import { describe, expect, it } from "vitest";
import type { ErrorResponseBody, SessionListResponseBody } from "../../src/api/schemas";
import { append, call, conversation, freshSession, waitFor } from "../support/helpers";
import { freshUser } from "../support/user-helpers";

type Listed = SessionListResponseBody["sessions"][number];

const list = async (as: string, query = "") =>
  (await call<SessionListResponseBody>("GET", `/v1/sessions${query}`, { as })).body;

async function listAll(as: string, limit: number): Promise<Listed[]> {
  const all: Listed[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?limit=${limit}${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`;
    const page = await list(as, query);
    expect(page.sessions.length).toBeLessThanOrEqual(limit);
    all.push(...page.sessions);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return all;
}

/** Lets the clock move on, so two sessions' activity times differ. */
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe("the session list", () => {
  it("lists a new session as soon as its first append answers, with its figures", async () => {
    const as = await freshUser();
    const id = freshSession();
    const appended = await append(id, { messages: conversation(1), model: "gpt-4o-mini" }, as);
    expect(appended.status).toBe(200);
    const { sessions, nextCursor } = await list(as);
    expect(nextCursor).toBeNull();
    expect(sessions).toEqual([
      {
        id,
        model: "gpt-4o-mini",
        createdAt: expect.any(String),
        lastActiveAt: expect.any(String),
        messageCount: 4,
        tokens: expect.any(Number),
        compactions: 0,
      },
    ]);
    expect(sessions[0]?.tokens).toBeGreaterThan(0);
    // A session created by PATCH is listed at once too.
    const patched = freshSession();
    await call("PATCH", `/v1/sessions/${patched}`, { as, body: { threshold: 0.5 } });
    expect((await list(as)).sessions.map((s) => s.id)).toContain(patched);
  });

  it("catches up with later appends and compactions", async () => {
    const as = await freshUser();
    const id = freshSession();
    await append(id, { messages: conversation(0) }, as);
    await append(id, { messages: conversation(3).slice(2) }, as);
    await append(id, { messages: conversation(6).slice(8) }, as);
    await waitFor(
      async () => (await list(as)).sessions[0]?.messageCount === 14,
      "the list to show 14 messages",
    );
    // A small window and tail, so the old tool outputs can be pruned.
    await call("PATCH", `/v1/sessions/${id}`, {
      as,
      body: { contextWindow: 16_000, tailTokens: 300 },
    });
    const before = (await list(as)).sessions[0];
    const compacted = await call<{ compacted: boolean }>("POST", `/v1/sessions/${id}/compact`, {
      as,
    });
    expect(compacted.body, JSON.stringify(compacted.body)).toMatchObject({ compacted: true });
    await waitFor(async () => (await list(as)).sessions[0]?.compactions === 1, "the compaction");
    const after = (await list(as)).sessions[0];
    expect(after?.tokens).toBeLessThan(before?.tokens ?? 0);
  });

  it("pages newest active first with a cursor that holds while sessions are created", async () => {
    const as = await freshUser();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = freshSession(`page${i}`);
      await append(id, { messages: conversation(0) }, as);
      ids.push(id);
      await tick();
    }
    const first = await list(as, "?limit=2");
    expect(first.sessions.map((s) => s.id)).toEqual([ids[4], ids[3]]);
    // A session created between pages comes before the cursor: the next pages go on where they were.
    await append(freshSession("late"), { messages: conversation(0) }, as);
    const rest: Listed[] = [];
    let cursor = first.nextCursor;
    while (cursor !== null) {
      const page = await list(as, `?limit=2&cursor=${encodeURIComponent(cursor)}`);
      rest.push(...page.sessions);
      cursor = page.nextCursor;
    }
    expect(rest.map((s) => s.id)).toEqual([ids[2], ids[1], ids[0]]);

    // Activity moves a session to the front.
    await tick();
    await append(ids[0] ?? "", { messages: [{ role: "user", content: "back again" }] }, as);
    await waitFor(async () => (await list(as, "?limit=1")).sessions[0]?.id === ids[0], "the move");
    const all = await listAll(as, 4);
    expect(all).toHaveLength(6);
    expect(new Set(all.map((s) => s.id)).size).toBe(6);
    const times = all.map((s) => s.lastActiveAt);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it("drops a deleted session by the time DELETE answers", async () => {
    const as = await freshUser();
    const kept = freshSession("kept");
    const gone = freshSession("gone");
    await append(kept, { messages: conversation(0) }, as);
    await append(gone, { messages: conversation(0) }, as);
    // An append just before the delete leaves a coalesced report pending; it must not bring it back.
    await append(gone, { messages: [{ role: "user", content: "one more" }] }, as);
    expect((await call("DELETE", `/v1/sessions/${gone}`, { as })).status).toBe(200);
    expect((await list(as)).sessions.map((s) => s.id)).toEqual([kept]);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await list(as)).sessions.map((s) => s.id)).toEqual([kept]);
  });

  it("never lists another user's sessions", async () => {
    const alice = await freshUser("alice");
    const bob = await freshUser("bob");
    const id = freshSession();
    await append(id, { messages: conversation(0) }, alice);
    expect((await list(alice)).sessions.map((s) => s.id)).toEqual([id]);
    expect((await list(bob)).sessions).toEqual([]);
    // Bob using the same session id gets a session of his own, listed for him alone.
    await append(id, { messages: conversation(1) }, bob);
    expect((await list(bob)).sessions.map((s) => s.messageCount)).toEqual([4]);
    expect((await list(alice)).sessions.map((s) => s.messageCount)).toEqual([2]);
  });

  it("refuses a bad limit or a cursor it did not return", async () => {
    const as = await freshUser();
    for (const query of [
      "?limit=0",
      "?limit=101",
      "?limit=x",
      "?cursor=%22%22",
      "?cursor=WzEsMl0",
    ]) {
      const reply = await call<ErrorResponseBody>("GET", `/v1/sessions${query}`, { as });
      expect(reply.status, query).toBe(400);
      expect(["invalid_request", "invalid_cursor"]).toContain(reply.body.error.code);
    }
    const cursor = await call<ErrorResponseBody>("GET", "/v1/sessions?cursor=WzEsMl0", { as });
    expect(cursor.body.error.code).toBe("invalid_cursor");
  });
});
