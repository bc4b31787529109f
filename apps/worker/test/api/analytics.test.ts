/**
 * The optional Analytics Engine dataset (`ANALYTICS`): one data point per committed compaction and
 * per gateway turn, with the user, model, tokens and duration, never content; none without the binding.
 */

import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AnalyticsDataset } from "../../src/analytics/data-points";
import { runCompaction } from "../../src/session/compaction/run";
import { MessageStore } from "../../src/session/store/message-store";
import { sessionScope } from "../../src/session/store/session-scope";
import {
  append,
  call,
  conversation,
  createSmallSession,
  freshSession,
  stubFor,
  waitFor,
} from "../support/helpers";

class FakeDataset implements AnalyticsDataset {
  readonly points: Array<{ blobs?: string[]; doubles?: number[]; indexes?: string[] }> = [];
  writeDataPoint(point: { blobs?: string[]; doubles?: number[]; indexes?: string[] }): void {
    this.points.push(point);
  }
}

describe("ANALYTICS data points", () => {
  it("writes one per committed compaction: user, model, tokens before and after, saved, tier, duration", async () => {
    const dataset = new FakeDataset();
    const id = freshSession("analytics");
    await createSmallSession(id);
    await append(id, { messages: conversation(16).slice(2) });
    // Run inside the session's object with the binding (the deployed test Worker has none).
    const result = await runInDurableObject(stubFor("alice", id), (_instance, state) =>
      runCompaction(
        sessionScope(() => state.storage, new MessageStore(state.storage.sql), env.DEFAULT_MODEL),
        { ...env, ANALYTICS: dataset },
        "manual",
        { force: true },
      ),
    );
    const event = result.event;
    if (event === undefined) throw new Error(`not committed: ${result.status}`);
    expect(dataset.points).toHaveLength(1);
    const [point] = dataset.points;
    expect(point?.indexes).toEqual(["alice"]);
    expect(point?.blobs).toEqual(["compaction", "alice", "gpt-4o", "manual"]);
    expect(point?.doubles?.slice(0, 5)).toEqual([
      event.tokensBefore,
      event.tokensAfter,
      0,
      event.tokensBefore - event.tokensAfter,
      event.tier,
    ]);
    expect(JSON.stringify(dataset.points)).not.toContain("module_1");
  });

  it("writes one per gateway turn with the upstream's reported input tokens", async () => {
    const dataset = new FakeDataset();
    const reply = await call("POST", "/v1/gateway/up/chat/completions", {
      as: null,
      env: { ANALYTICS: dataset },
      headers: { "X-Condense-Key": "alice-key" },
      body: { model: "gpt-4o", messages: [{ role: "user", content: "hello there" }] },
    });
    expect(reply.status).toBe(200);
    await waitFor(() => dataset.points.length === 1, "the turn's data point");
    const [point] = dataset.points;
    expect(point?.blobs).toEqual(["gateway_turn", "alice", "gpt-4o", "up"]);
    expect(point?.doubles).toHaveLength(6);
    expect(JSON.stringify(dataset.points)).not.toContain("hello there");
  });

  it("writes nothing without the binding", async () => {
    const reply = await call("POST", "/v1/gateway/up/chat/completions", {
      as: null,
      headers: { "X-Condense-Key": "alice-key" },
      body: { model: "gpt-4o", messages: [{ role: "user", content: "hi" }] },
    });
    expect(reply.status).toBe(200);
  });
});
