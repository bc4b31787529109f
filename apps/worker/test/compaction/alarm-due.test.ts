/**
 * A background compaction waits for its due time even when the session's one alarm fires sooner
 * (`session-alarm`): the alarm is shared with the compaction events' retries, the cold-cache moment
 * and the retention, and one of those firing first must not run a compaction whose delay
 * (`COMPACTION_DELAY_MS`, an hour in the suite) or grace (`CACHED_SUMMARY_GRACE_MS` with
 * `cachedSummaries`) has not passed: it sets the alarm again for it, and the alarm at or after that
 * time compacts.
 */

import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SessionObject } from "../../src/session/session-object";
import {
  append,
  compactions,
  conversation,
  createSmallSession,
  freshSession,
  status,
  stubFor,
} from "../support/helpers";

const alarmOf = (id: string) =>
  runInDurableObject(stubFor("alice", id), (_instance, state) => state.storage.getAlarm());

describe("a pending background compaction and an alarm that fires before it is due", () => {
  it("leaves it pending, sets the alarm again for its due time, and compacts once that has passed", async () => {
    const id = freshSession("due");
    await createSmallSession(id, { cachedSummaries: true });
    const before = Date.now();
    const crossing = await append(id, { messages: conversation(20).slice(2) });
    expect(crossing.body.compaction.status).toBe("scheduled");
    const after = Date.now();
    // The suite's delay is longer than the grace: the compaction is due an hour after the append.
    const delayMs = Number(env.COMPACTION_DELAY_MS);
    expect(delayMs).toBeGreaterThan(5 * 60_000);

    // The alarm fires early (as for an event's delivery or the cold-cache moment): nothing compacts.
    const stub = stubFor("alice", id);
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await compactions(id)).toHaveLength(0);
    expect((await status(id)).compaction.status).toBe("scheduled");
    // Set again, in the future, no later than the compaction is due (sooner when something else is).
    const rearmed = await alarmOf(id);
    expect(rearmed).not.toBeNull();
    expect(rearmed ?? 0).toBeGreaterThan(before);
    expect(rearmed ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(after + delayMs);

    // The object's clock past the due time: the alarm compacts.
    await runInDurableObject(stub, (instance: SessionObject) => {
      instance.clock = () => Date.now() + delayMs;
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const [event, ...more] = await compactions(id);
    expect(more).toHaveLength(0);
    expect(event).toMatchObject({ trigger: "append" });
    expect(event?.tokensAfter).toBeLessThan(event?.tokensBefore ?? 0);
    expect((await status(id)).compaction.status).not.toBe("scheduled");
  });
});
