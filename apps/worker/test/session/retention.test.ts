/**
 * Retention (`SESSION_RETENTION_DAYS`): a session idle longer than the retention is deleted by its
 * own alarm, with its vectors, and leaves its user's list; one active since, or a deployment that
 * keeps sessions forever, keeps it. The alarm is shared with background compactions: neither
 * clobbers the other.
 */

import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import type { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import type { SessionListResponse } from "../../src/api/schemas";
import {
  append,
  call,
  compactions,
  conversation,
  freshSession,
  runAlarmWhenDue,
  stubFor,
  waitFor,
} from "../support/helpers";
import { FakeAi, FakeIndex } from "../support/semantic-fakes";

const DAY_MS = 86_400_000;
type SessionList = z.infer<typeof SessionListResponse>;

/** A new session whose object runs with `vars` (and the fake bindings), before its first message. */
async function sessionWith(vars: Partial<Env>, user = "alice"): Promise<string> {
  const id = freshSession("retention");
  await runInDurableObject(stubFor(user, id), (instance) => {
    Object.assign(instance, { env: { ...env, ...vars } });
  });
  return id;
}

const alarmOf = (id: string) =>
  runInDurableObject(stubFor("alice", id), (_instance, state) => state.storage.getAlarm());

/** Makes the session look idle since `msAgo` (its last activity is what retention measures). */
async function idleSince(id: string, msAgo: number): Promise<void> {
  await runInDurableObject(stubFor("alice", id), (_instance, state) => {
    state.storage.sql.exec(
      "UPDATE condense_session SET updated_at = ? WHERE id = 1",
      Date.now() - msAgo,
    );
  });
}

const listed = async (id: string) =>
  (await call<SessionList>("GET", "/v1/sessions?limit=100")).body.sessions.some((s) => s.id === id);

describe("SESSION_RETENTION_DAYS", () => {
  it("deletes a session idle past its retention at its alarm, with its vectors, and it leaves the list", async () => {
    const index = new FakeIndex();
    const id = await sessionWith({
      SESSION_RETENTION_DAYS: "1.5",
      AI: new FakeAi(),
      VECTORIZE: index,
    });
    const before = Date.now();
    await append(id, { messages: [{ role: "user", content: "my car broke down" }] });
    await waitFor(() => index.vectors.size === 1, "the embedding");
    expect(await listed(id)).toBe(true);
    // The alarm waits for the deadline: the last activity plus 1.5 days.
    const alarm = await alarmOf(id);
    expect(alarm).toBeGreaterThanOrEqual(before + 1.5 * DAY_MS);
    expect(alarm).toBeLessThanOrEqual(Date.now() + 1.5 * DAY_MS);

    await idleSince(id, 1.5 * DAY_MS + 1);
    expect(await runDurableObjectAlarm(stubFor("alice", id))).toBe(true);
    expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(404);
    expect(await listed(id)).toBe(false);
    expect(index.vectors.size).toBe(0);
    // Nothing is left to run: no tombstone, no alarm.
    expect(await alarmOf(id)).toBeNull();
  });

  it("keeps a session active since: an early alarm arms the next deadline instead", async () => {
    const id = await sessionWith({ SESSION_RETENTION_DAYS: "2" });
    await append(id, { messages: [{ role: "user", content: "hello" }] });
    await idleSince(id, DAY_MS);
    expect(await runDurableObjectAlarm(stubFor("alice", id))).toBe(true);
    expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(200);
    expect(await listed(id)).toBe(true);
    // The deadline is a day away now (idle one day of two).
    const alarm = (await alarmOf(id)) ?? 0;
    expect(alarm - Date.now()).toBeGreaterThan(0.9 * DAY_MS);
    expect(alarm - Date.now()).toBeLessThanOrEqual(DAY_MS);
  });

  it("keeps sessions forever when unset or 0", async () => {
    for (const vars of [{}, { SESSION_RETENTION_DAYS: "0" }]) {
      const id = await sessionWith(vars);
      await append(id, { messages: [{ role: "user", content: "hello" }] });
      expect(await alarmOf(id)).toBeNull();
      await idleSince(id, 3650 * DAY_MS);
      expect(await runDurableObjectAlarm(stubFor("alice", id))).toBe(false);
      expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(200);
    }
  });

  it("shares the alarm with background compaction: each runs when due, neither clobbers the other", async () => {
    const id = await sessionWith({ SESSION_RETENTION_DAYS: "30" });
    await append(id, { messages: conversation(0), model: "gpt-4o" });
    await call("PATCH", `/v1/sessions/${id}`, { body: { contextWindow: 16_000 } });
    const crossing = await append(id, { messages: conversation(20).slice(2) });
    expect(crossing.body.compaction.status).toBe("scheduled");
    // The compaction's alarm (COMPACTION_DELAY_MS, an hour in tests) comes before the retention's.
    const compactionAlarm = (await alarmOf(id)) ?? 0;
    expect(compactionAlarm - Date.now()).toBeLessThanOrEqual(3_600_000);

    // A pending compaction whose alarm was replaced by a later one (the retention's) gets its own again.
    await runInDurableObject(stubFor("alice", id), (_instance, state) =>
      state.storage.setAlarm(Date.now() + 30 * DAY_MS),
    );
    await append(id, { messages: [{ role: "user", content: "one more thing" }] });
    expect(((await alarmOf(id)) ?? 0) - Date.now()).toBeLessThanOrEqual(3_600_000);

    expect(await runAlarmWhenDue(stubFor("alice", id))).toBe(true);
    expect(await compactions(id)).toHaveLength(1);
    // After the compaction, the retention's alarm is set again.
    expect(((await alarmOf(id)) ?? 0) - Date.now()).toBeGreaterThan(29 * DAY_MS);
    expect((await call("GET", `/v1/sessions/${id}`)).status).toBe(200);
  });
});
