/**
 * The compaction a cold cache makes worth it (`session/store/cold-cache`, `session-alarm`), with
 * Anthropic's five-minute cache: a context past the cost policy's floor whose excess read does not
 * yet pay for a bust is left alone in the turn, and the alarm is set for the moment the cache
 * goes cold (the last read, five minutes on); an append arriving meanwhile neither moves that
 * moment nor is lost; a later read moves it (the alarm, set for the earlier one, finds the cache
 * warm and is set again); and the alarm compacts once the cache is cold, not before.
 */

import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ContextResponseBody } from "../../src/api/schemas";
import {
  append,
  call,
  compactions,
  freshSession,
  status,
  stubFor,
  textOf,
  toolStep,
  transcript,
} from "../support/helpers";

const MODEL = "claude-sonnet-4-5";
const FIVE_MINUTES = 5 * 60_000;

const alarmOf = (id: string) =>
  runInDurableObject(stubFor("alice", id), (_instance, state) => state.storage.getAlarm());

/** When the session's cache was last read: its last served model request. */
const lastReadOf = (id: string) =>
  runInDurableObject(stubFor("alice", id), (_instance, state) =>
    state.storage.sql
      .exec<{ at: number }>("SELECT at FROM condense_turns ORDER BY id DESC LIMIT 1")
      .one(),
  );

describe("the compaction a cold cache makes worth it (Anthropic: five minutes)", () => {
  it("is left to the alarm five minutes after the last read, keeps an append that came meanwhile, and runs once the cache is cold", async () => {
    const id = freshSession("cold-cache");
    const stub = stubFor("alice", id);
    await append(id, {
      messages: [
        { role: "system", content: "You are a build assistant." },
        { role: "user", content: "Run the tests and fix what fails." },
      ],
      model: MODEL,
    });
    await call("PATCH", `/v1/sessions/${id}`, { body: { contextWindow: 100_000 } });
    // The last compaction left 50k, none of it read since: a bust does not pay yet.
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec(
        "UPDATE condense_session SET cache_excess_tokens = 0, cache_compacted_tokens = 50000, cache_stable_tokens = 0",
      );
    });
    // The tool steps are the agent's model requests: the last of them is the cache's last read.
    const steps = Array.from({ length: 72 }, (_, i) => toolStep(i + 1, 2_400)).flat();
    const grown = await append(id, { messages: steps });
    // Past the floor (half the window), under the limit: no compaction in the turn.
    expect(grown.body.tokens).toBeGreaterThan(50_000);
    expect(grown.body.tokens).toBeLessThan(75_000);
    expect(grown.body.compaction.status).toBe("none");
    const { at: readAt } = await lastReadOf(id);
    expect(await alarmOf(id)).toBe(readAt + FIVE_MINUTES);

    // An append meanwhile (no model request): the moment stays, and nothing compacts yet.
    const meanwhile = await append(id, {
      messages: [{ role: "user", content: "meanwhile: the flaky test is in parser.spec.ts" }],
    });
    expect(meanwhile.body.compaction.status).toBe("none");
    expect(await alarmOf(id)).toBe(readAt + FIVE_MINUTES);

    // A later read moves the moment: the alarm, still at the earlier one, finds the cache warm,
    // compacts nothing, and is set again for five minutes after the new read.
    await call("GET", `/v1/sessions/${id}/context`);
    const { at: laterReadAt } = await lastReadOf(id);
    expect(laterReadAt).toBeGreaterThanOrEqual(readAt);
    await runDurableObjectAlarm(stub);
    expect(await compactions(id)).toHaveLength(0);
    expect(await alarmOf(id)).toBe(laterReadAt + FIVE_MINUTES);

    // Six minutes after the read (the read moved back): cold, so the alarm compacts.
    await runInDurableObject(stub, (_instance, state) => {
      state.storage.sql.exec("UPDATE condense_turns SET at = at - ?", 6 * 60_000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const [event, ...more] = await compactions(id);
    expect(more).toHaveLength(0);
    expect(event).toMatchObject({ trigger: "cold_cache" });
    expect(event?.tokensAfter).toBeLessThan(event?.tokensBefore ?? 0);

    const all = await transcript(id);
    expect(all.at(-1)?.seq).toBe(meanwhile.body.lastSeq);
    expect(textOf(all.at(-1)?.message)).toBe("meanwhile: the flaky test is in parser.spec.ts");
    const context = await call<ContextResponseBody>("GET", `/v1/sessions/${id}/context`);
    expect(context.body.messages.map(textOf).at(-1)).toBe(
      "meanwhile: the flaky test is in parser.spec.ts",
    );
    expect((await status(id)).messageCount).toBe(meanwhile.body.lastSeq);
  });
});
