/**
 * The alarm's grace for summaries through the cache (`compaction/scheduler`,
 * `CACHED_SUMMARY_GRACE_MS`): with `cachedSummaries` on, a compaction that falls due is left
 * to the gateway's next turn for the provider cache's lifetime (five minutes), so its alarm is
 * set that much later rather than after `COMPACTION_DELAY_MS` alone; when it fires, the alarm
 * compacts with the deployment's summarizer, and appends that arrive meanwhile, before the
 * alarm or while it compacts, are kept and do not push the alarm back.
 *
 * The suite's `COMPACTION_DELAY_MS` is an hour (background compactions run only when a test
 * fires the alarm, the object's clock moved on to when they are due), which hides the grace: the alarm's time is read from a scheduler built on
 * the session's own storage with the deployment's delay (0 by default, `wrangler.jsonc`).
 */

import { env, runInDurableObject } from "cloudflare:test";
import { scenarioModel } from "@condense/test-servers";
import { describe, expect, it } from "vitest";
import type { ContextResponseBody } from "../../src/api/schemas";
import { noMemorySink } from "../../src/session/compaction/memory-flush";
import { CACHED_SUMMARY_GRACE_MS } from "../../src/session/compaction/pending";
import { CompactionScheduler } from "../../src/session/compaction/scheduler";
import { MessageStore } from "../../src/session/store/message-store";
import { clearPendingTrigger } from "../../src/session/store/session-record";
import { sessionScope } from "../../src/session/store/session-scope";
import {
  append,
  call,
  compactions,
  conversation,
  createSmallSession,
  freshSession,
  llm,
  runAlarmWhenDue,
  status,
  stubFor,
  textOf,
  transcript,
} from "../support/helpers";

/** A session whose context is over its trigger, its summaries by `summarizerModel`. */
async function dueSession(settings: Record<string, unknown>): Promise<string> {
  const id = freshSession("grace");
  await createSmallSession(id, settings);
  const crossing = await append(id, { messages: conversation(20).slice(2) });
  expect(crossing.body.compaction.status).toBe("scheduled");
  return id;
}

const alarmOf = (id: string) =>
  runInDurableObject(stubFor("alice", id), (_instance, state) => state.storage.getAlarm());

/**
 * Where a scheduler with the deployment's `COMPACTION_DELAY_MS` of `delayMs` sets the alarm for
 * session `id`'s compaction as it falls due at `now`, as after the append that crossed the trigger
 * (the suite's own alarm and mark, an hour away, are taken back first).
 */
function armedAt(id: string, delayMs: number, now: number): Promise<number | null> {
  return runInDurableObject(stubFor("alice", id), async (_instance, state) => {
    await state.storage.deleteAlarm();
    clearPendingTrigger(state.storage.sql);
    const scope = sessionScope(
      () => state.storage,
      new MessageStore(state.storage.sql),
      env.DEFAULT_MODEL,
      () => now,
    );
    const scheduler = new CompactionScheduler({
      scope,
      env: { ...env, COMPACTION_DELAY_MS: String(delayMs) },
      memorySinks: () => noMemorySink,
      committed: () => {},
      eventsRecorded: () => {},
    });
    expect(await scheduler.scheduleIfNeeded("append")).toBe(true);
    return state.storage.getAlarm();
  });
}

describe("the alarm's grace for summaries through the cache", () => {
  it("sets a due compaction's alarm five minutes later with cachedSummaries, the delay alone without", async () => {
    // The scheduler's clock a minute ahead: the storage moves an alarm set in the past to the present.
    const now = Date.now() + 60_000;
    const cached = await dueSession({ cachedSummaries: true });
    expect(await armedAt(cached, 0, now)).toBe(now + CACHED_SUMMARY_GRACE_MS);
    expect(CACHED_SUMMARY_GRACE_MS).toBe(5 * 60_000);
    // A longer delay of the deployment's own stays the longer.
    expect(await armedAt(cached, 10 * 60_000, now)).toBe(now + 10 * 60_000);
    const plain = await dueSession({ cachedSummaries: false });
    expect(await armedAt(plain, 0, now)).toBe(now);
  });

  it("compacts when the alarm fires, keeping the appends that came before it and while it ran", async () => {
    const tag = crypto.randomUUID();
    const model = scenarioModel({ name: tag, hold: true });
    const id = await dueSession({ cachedSummaries: true, summarizerModel: model });
    const scheduledAt = await armedAt(id, 0, Date.now());
    expect(scheduledAt).not.toBeNull();

    // An append before the alarm: kept, and the alarm is not pushed back.
    const before = await append(id, {
      messages: [{ role: "user", content: "meanwhile: use pnpm" }],
    });
    expect(before.status).toBe(200);
    expect(before.body.compaction.status).toBe("scheduled");
    expect(await alarmOf(id)).toBe(scheduledAt);
    expect(await compactions(id)).toHaveLength(0);

    // The alarm fires; its summary is held while another append arrives.
    const firing = runAlarmWhenDue(stubFor("alice", id));
    await llm.waitForRequests(model);
    const during = await append(id, {
      messages: [{ role: "user", content: "while compacting: keep the tests green" }],
    });
    expect(during.status).toBe(200);
    expect((await status(id)).compaction.status).toBe("running");
    await llm.release(tag);
    expect(await firing).toBe(true);

    const [event, ...more] = await compactions(id);
    expect(more).toHaveLength(0);
    expect(event).toMatchObject({
      trigger: "append",
      summarizer: "llm",
      // The snapshot was taken when the alarm fired: the append before it is in, the one during it is not.
      range: { fromSeq: 1, toSeq: before.body.lastSeq },
    });
    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(context.body.coveredSeq).toBe(before.body.lastSeq);
    expect(context.body.messages.map(textOf).at(-1)).toBe("while compacting: keep the tests green");
    const all = await transcript(id);
    expect(all.map((entry) => textOf(entry.message)).slice(-2)).toEqual([
      "meanwhile: use pnpm",
      "while compacting: keep the tests green",
    ]);
    expect(all.at(-1)?.seq).toBe(during.body.lastSeq);
  });
});
