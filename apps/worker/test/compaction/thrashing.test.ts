/**
 * Never stuck compacting (issue 33, finding 6): a context that refills within
 * a few turns of each compaction, several times in a row, is thrashing; the
 * session says so and moves what refills it, the largest tool outputs, to
 * recall instead of summarizing again every few turns. And the LLM
 * summarizer has a breaker beside its cooldown: after failures in a row it is
 * skipped for longer, and the status says so.
 */

import { runInDurableObject } from "cloudflare:test";
import { scenarioModel } from "@condense/test-servers";
import { describe, expect, it } from "vitest";
import type { SessionObject } from "../../src/session/session-object";
import {
  append,
  call,
  compactions,
  freshSession,
  llm,
  type Message,
  status,
  stubFor,
} from "../support/helpers";

/** `lines` lines of a file, about 15 tokens each. */
function file(lines: number, name: string): string {
  return Array.from({ length: lines }, (_, i) => `${name}:${i} const row_${i} = load(${i});`).join(
    "\n",
  );
}

/** One agent turn: a Read of a large file and its result (about 3,000 tokens). */
function readTurn(turn: number): Message[] {
  const id = `read_${turn}`;
  return [
    {
      role: "assistant",
      content: `Reading part ${turn}.`,
      tool_calls: [
        {
          id,
          type: "function",
          function: {
            name: "read_file",
            arguments: JSON.stringify({ path: `src/part_${turn}.ts` }),
          },
        },
      ],
    },
    { role: "tool", tool_call_id: id, content: file(200, `part_${turn}`) },
  ];
}

async function session(settings: Record<string, unknown>): Promise<string> {
  const id = freshSession("thrash");
  const first = await append(id, {
    model: "gpt-4o",
    messages: [
      { role: "system", content: "You are a careful coding agent." },
      { role: "user", content: "Read every part of the loader and list what each exports." },
    ],
  });
  expect(first.status).toBe(200);
  const patch = await call("PATCH", `/v1/sessions/${id}`, {
    body: { contextWindow: 16_000, ...settings },
  });
  expect(patch.status).toBe(200);
  return id;
}

/** Appends a turn, then fetches the context as the agent does before its next request. */
async function turn(id: string, index: number): Promise<void> {
  expect((await append(id, { messages: readTurn(index) })).status).toBe(200);
  expect((await call("GET", `/v1/sessions/${id}/context`)).status).toBe(200);
}

describe("thrashing (issue 33)", () => {
  it("is detected after three quick refills, reported, and answered by moving the largest outputs to recall", async () => {
    const model = `summary-${crypto.randomUUID()}`;
    const id = await session({ summarizerModel: model });
    let index = 0;
    // Every turn reads a file of about a fifth of the window: the context refills in 2–3 turns.
    while (!(await status(id)).compaction.thrashing && index < 30) await turn(id, index++);
    const thrashing = (await status(id)).compaction.thrashing;
    expect(thrashing).toBeTruthy();
    expect(thrashing?.refills).toBeGreaterThanOrEqual(3);
    for (const turns of thrashing?.turnsApart ?? []) expect(turns).toBeLessThanOrEqual(3);
    const summariesBefore = await llm.count(model);
    expect(summariesBefore).toBeGreaterThan(0);
    const before = (await compactions(id)).length;

    // Thrashing: the next compactions strip the largest outputs instead of summarizing again.
    for (let more = 0; more < 6; more++) await turn(id, index++);
    const after = await compactions(id);
    expect(after.length).toBeGreaterThan(before);
    for (const event of after.slice(before)) {
      expect(event.tier).toBe(1);
      expect(event.prunedToolOutputs).toBeGreaterThan(0);
      // The strip keeps the summary an earlier compaction's LLM wrote: this one wrote none.
      expect(event.summary).not.toBeNull();
      expect(event.summarizer).toBeNull();
    }
    expect(await llm.count(model)).toBe(summariesBefore);
    const context = await call<{ messages: Message[] }>("GET", `/v1/sessions/${id}/context`);
    const placeholders = context.body.messages.filter(
      (message) =>
        message.role === "tool" &&
        typeof message.content === "string" &&
        message.content.startsWith("[Condense pruned this read_file output"),
    );
    expect(placeholders.length).toBeGreaterThan(0);
    expect(String(placeholders.at(-1)?.content)).toMatch(/tool call id read_\d+/);
  });

  it("is not reported for a session whose compactions are many turns apart", async () => {
    const id = await session({});
    // About 700 tokens a turn: the context passes its budget every several turns.
    for (let index = 0; index < 36; index++) {
      const messages = [
        { role: "assistant", content: `Step ${index} done.` },
        { role: "user", content: `Next step ${index}: ${file(45, `plan_${index}`)}` },
      ];
      expect((await append(id, { messages })).status).toBe(200);
      expect((await call("GET", `/v1/sessions/${id}/context`)).status).toBe(200);
    }
    expect((await compactions(id)).length).toBeGreaterThanOrEqual(3);
    expect((await status(id)).compaction.thrashing).toBeNull();
  });
});

describe("the LLM summarizer's breaker (issue 33)", () => {
  it("opens after three failures in a row, skips the LLM while open, and says so in status", async () => {
    const model = scenarioModel({ name: crypto.randomUUID(), fail: 500 });
    const id = await session({ summarizerModel: model, tailTokens: 1_000 });
    const stub = stubFor("alice", id);
    /** The cooldown of one failure ends: as if its 600 s had passed. */
    const endCooldown = () =>
      runInDurableObject(stub, (_object: SessionObject, state) => {
        state.storage.sql.exec("UPDATE condense_session SET cooldown_until = NULL WHERE id = 1");
      });
    let index = 0;
    for (let failure = 1; failure <= 3; failure++) {
      const calls = await llm.count(model);
      while ((await llm.count(model)) === calls && index < 40) await turn(id, index++);
      await endCooldown();
      expect((await status(id)).compaction.summarizer.consecutiveFailures).toBe(failure);
    }
    const summarizer = (await status(id)).compaction.summarizer;
    expect(summarizer.breaker).toBe("open");
    expect(summarizer.lastFailure?.message).toMatch(/500/);
    expect(Date.parse(summarizer.openUntil ?? "")).toBeGreaterThan(Date.now() + 600_000);

    // Open: though the cooldown is over, compactions no longer call the LLM.
    const calls = await llm.count(model);
    const count = (await compactions(id)).length;
    while ((await compactions(id)).length < count + 2 && index < 60) {
      await turn(id, index++);
      await endCooldown();
    }
    expect((await compactions(id)).length).toBeGreaterThanOrEqual(count + 2);
    expect(await llm.count(model)).toBe(calls);
  });
});
