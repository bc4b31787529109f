import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { listCompactions } from "../compaction/history";
import { checkToolTraffic, indexToolCalls, readToolOutput } from "../context/tool-outputs";
import { MessageStore } from "./message-store";
import { migrate, SCHEMA_VERSION } from "./schema";
import { ledgerOf, pendingDueAt, readSession } from "./session-record";
import { sessionScope } from "./session-scope";

/** A fresh, never-used session object to borrow storage from. */
function freshObject() {
  return env.SESSIONS.get(env.SESSIONS.idFromName(`schema-test-${crypto.randomUUID()}`));
}

describe("schema", () => {
  it("migrates once and records its versions", async () => {
    const version = await runInDurableObject(freshObject(), (_instance, state) => {
      migrate(state.storage);
      migrate(state.storage);
      const tables = state.storage.sql
        .exec<{ name: string }>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'condense_%'",
        )
        .toArray()
        .map((row) => row.name);
      expect(tables).toEqual(
        expect.arrayContaining(["condense_transcript", "condense_view", "condense_idempotency"]),
      );
      return state.storage.sql
        .exec<{ version: number }>("SELECT version FROM condense_schema_version ORDER BY version")
        .toArray();
    });
    expect(version).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => ({ version: i + 1 })));
  });

  it("upgrades a v1 session in place: its row is kept and it has no ledger yet", async () => {
    const upgraded = await runInDurableObject(freshObject(), (_instance, state) => {
      migrate(state.storage, 1);
      state.storage.sql.exec(
        `INSERT INTO condense_session (id, user_id, session_id, epoch, created_at, updated_at, message_count)
         VALUES (1, 'alice', 's', 'e', 1, 2, 7)`,
      );
      migrate(state.storage);
      const session = readSession(state.storage.sql);
      return { session, ledger: session === undefined ? "missing" : ledgerOf(session) };
    });
    expect(upgraded.session).toMatchObject({
      userId: "alice",
      messageCount: 7,
      ledger: null,
      learnedWindow: null,
      servedTokens: null,
      overheadTokens: 0,
    });
    expect(upgraded.ledger).toBeUndefined();
  });

  it("upgrades v2 compaction history in place: older events have no duration", async () => {
    const events = await runInDurableObject(freshObject(), (_instance, state) => {
      migrate(state.storage, 2);
      state.storage.sql.exec(
        `INSERT INTO condense_compactions (at, trigger, strategy, tier, tokens_before, tokens_after, from_seq,
           to_seq, pruned_count, passes)
         VALUES (1, 'manual', 'local', 1, 900, 300, 1, 9, 2, 1)`,
      );
      migrate(state.storage);
      return listCompactions(state.storage.sql);
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ tokensBefore: 900, tokensAfter: 300, durationMs: null });
  });

  it("upgrades a v4 tool-output index (keyed by call id) to one row per call; old sessions keep working", async () => {
    const upgraded = await runInDurableObject(freshObject(), (_instance, state) => {
      const sql = state.storage.sql;
      migrate(state.storage, 4);
      sql.exec(
        `INSERT INTO condense_session (id, user_id, session_id, epoch, created_at, updated_at, message_count)
         VALUES (1, 'alice', 's', 'e', 1, 2, 4)`,
      );
      const store = new MessageStore(sql);
      const scope = sessionScope(() => state.storage, store, env.DEFAULT_MODEL);
      const call = (id: string) => ({
        role: "assistant" as const,
        content: null,
        tool_calls: [
          { id, type: "function" as const, function: { name: "bash", arguments: "{}" } },
        ],
      });
      const messages = [
        call("call_a"),
        { role: "tool" as const, tool_call_id: "call_a", content: "output a" },
        call("call_b"),
        { role: "tool" as const, tool_call_id: "call_b", content: "output b" },
      ];
      messages.forEach((message, i) => {
        store.appendTranscript(i + 1, message, 5, 1);
      });
      // The v4 layout: one row per id, with the compaction that pruned it.
      sql.exec(
        `INSERT INTO condense_tool_outputs (tool_call_id, tool_name, seq, pruned_by)
         VALUES ('call_a', 'bash', 2, 7), ('call_b', 'bash', 4, NULL)`,
      );
      migrate(state.storage);
      const first = readToolOutput(scope, "call_a");
      // The session goes on: call_a comes back as a new call, and its new output is the latest.
      const next = [
        call("call_a"),
        { role: "tool" as const, tool_call_id: "call_a", content: "again" },
      ];
      const problems = checkToolTraffic(sql, next, 4);
      next.forEach((message, i) => {
        indexToolCalls(sql, message, 5 + i);
        store.appendTranscript(5 + i, message, 5, 1);
      });
      return {
        first,
        problems,
        latest: readToolOutput(scope, "call_a"),
        earlier: readToolOutput(scope, "call_a", 2),
        duplicate: checkToolTraffic(sql, [next[1] ?? call("x")], 6).map((p) => p.kind),
        session: readSession(sql),
      };
    });
    expect(upgraded.first).toMatchObject({
      toolCallId: "call_a",
      content: "output a",
      seq: 2,
      occurrence: 1,
      pruned: true,
      previousSeq: null,
      nextSeq: null,
    });
    expect(upgraded.problems).toEqual([]);
    expect(upgraded.latest).toMatchObject({
      content: "again",
      seq: 6,
      occurrence: 2,
      previousSeq: 2,
    });
    expect(upgraded.earlier).toMatchObject({ content: "output a", nextSeq: 6, pruned: true });
    expect(upgraded.duplicate).toEqual(["duplicate_result"]);
    expect(upgraded.session).toMatchObject({
      failedAttempts: 0,
      lastFailure: null,
      retryAt: null,
    });
  });

  it("upgrades a v17 session whose background compaction is pending: it is due at once, as it was", async () => {
    const upgraded = await runInDurableObject(freshObject(), (_instance, state) => {
      migrate(state.storage, 17);
      state.storage.sql.exec(
        `INSERT INTO condense_session (id, user_id, session_id, epoch, created_at, updated_at, message_count,
           pending_trigger)
         VALUES (1, 'alice', 's', 'e', 1, 2, 7, 'append')`,
      );
      migrate(state.storage);
      const session = readSession(state.storage.sql);
      return { session, due: session === undefined ? "missing" : pendingDueAt(session) };
    });
    expect(upgraded.session).toMatchObject({ pendingTrigger: "append", pendingDueAt: null });
    expect(upgraded.due).toBeUndefined();
  });
});
