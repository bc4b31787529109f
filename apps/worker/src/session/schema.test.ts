import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { listCompactions } from "./compaction-history";
import { migrate, SCHEMA_VERSION } from "./schema";
import { ledgerOf, readSession } from "./session-record";

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
      user_id: "alice",
      message_count: 7,
      ledger: null,
      learned_window: null,
      served_tokens: null,
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
});
