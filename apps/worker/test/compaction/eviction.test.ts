/**
 * A session object torn down in the middle of a compaction loses nothing.
 *
 * `evictDurableObject` refuses to evict an object that is still running a
 * request or an alarm (it waits for them, then fails with "it still has
 * active references"), and a compaction waiting on its LLM is exactly that.
 * So the eviction in the middle is done with `abortAllDurableObjects`, which
 * tears the instance down with the compaction in flight, as a deploy or a
 * crash would; `evictDurableObject` is used where the object is idle. This
 * file has its own runner, so the abort reaches only its objects.
 */

import { abortAllDurableObjects, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { scenarioModel } from "@condense/test-servers";
import { describe, expect, it } from "vitest";
import type { ContextResponseBody } from "../../src/api/schemas";
import {
  call,
  compactions,
  llm,
  llmSession,
  moveClockToDue,
  runAlarmWhenDue,
  status,
  stubFor,
  textOf,
  transcript,
  waitFor,
} from "../support/helpers";

describe("eviction in the middle of a compaction", () => {
  it("keeps the previous state, every append, and finishes the compaction later", async () => {
    const tag = crypto.randomUUID();
    const model = scenarioModel({ name: tag, hold: true });
    const id = await llmSession(model);
    await call("PATCH", `/v1/sessions/${id}`, { body: { threshold: 0.05 } });
    const stub = stubFor("alice", id);
    const contextBefore = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    const lastSeq = contextBefore.body.lastSeq;
    expect((await status(id)).compaction.status).toBe("scheduled");

    // Once the compaction is due, the runtime fires the alarm by itself; the background compaction
    // reaches the LLM and waits there.
    await moveClockToDue(stub);
    await runInDurableObject(stub, (_instance, state) => state.storage.setAlarm(Date.now()));
    await llm.waitForRequests(model);
    const during = await call("POST", `/v1/sessions/${id}/messages`, {
      body: { messages: [{ role: "user", content: "sent during the compaction" }] },
    });
    expect(during.status).toBe(200);

    await abortAllDurableObjects();
    // Stubs made before the abort are broken with it; the object itself comes back on the next call.
    const fresh = stubFor("alice", id);

    // Nothing was committed, nothing was lost.
    const after = await status(id);
    expect(after.messageCount).toBe(lastSeq + 1);
    expect(after.coveredSeq).toBe(0);
    expect(await compactions(id)).toHaveLength(0);
    const all = await transcript(id);
    expect(all.map((entry) => entry.seq)).toEqual(
      Array.from({ length: lastSeq + 1 }, (_, i) => i + 1),
    );
    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(context.body.messages).toEqual([...contextBefore.body.messages, all.at(-1)?.message]);

    // The compaction is still owed: the retried (or re-armed) alarm completes it once the LLM answers.
    await llm.release(tag);
    await waitFor(async () => {
      // The new instance's clock is the machine's again.
      await runAlarmWhenDue(fresh);
      return (await compactions(id)).length > 0;
    }, "the compaction after the abort");
    const history = await compactions(id);
    expect(history).toHaveLength(1);
    const final = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(final.body.coveredSeq).toBe(history[0]?.range.toSeq);
    expect(textOf(final.body.messages.at(-1))).toBe("sent during the compaction");
    expect(await transcript(id)).toHaveLength(lastSeq + 1);

    // An idle object evicts cleanly and comes back with the same state.
    await evictDurableObject(fresh);
    expect((await status(id)).coveredSeq).toBe(final.body.coveredSeq);
  });
});
