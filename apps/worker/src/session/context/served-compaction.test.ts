import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { migrate } from "../store/schema";
import { takeServedCompaction } from "./served-compaction";

function freshObject() {
  return env.SESSIONS.get(env.SESSIONS.idFromName(`served-test-${crypto.randomUUID()}`));
}

/** A view covering seq 9, made by compaction `id` (0: none, as a new generation leaves it). */
function setView(sql: SqlStorage, id: number): void {
  sql.exec(
    `INSERT OR REPLACE INTO condense_view_state (id, covered_seq, compaction_id, tokens, strategy)
     VALUES (1, 9, ?, 100, 'local')`,
    id,
  );
}

function addCompaction(sql: SqlStorage, tier: number): number {
  sql.exec(
    `INSERT INTO condense_compactions (at, trigger, strategy, tier, tokens_before, tokens_after,
       from_seq, to_seq, pruned_count, passes)
     VALUES (1, 'background', 'local', ?, 900, 300, 1, 9, 0, 1)`,
    tier,
  );
  return sql.exec<{ id: number }>("SELECT last_insert_rowid() AS id").one().id;
}

describe("takeServedCompaction", () => {
  it("names each compaction's tier once, the first time its view is served", async () => {
    const served = await runInDurableObject(freshObject(), (_instance, state) => {
      const sql = state.storage.sql;
      migrate(state.storage);
      sql.exec(
        `INSERT INTO condense_session (id, user_id, session_id, epoch, created_at, updated_at, message_count)
         VALUES (1, 'alice', 's', 'e', 1, 2, 9)`,
      );
      const seen: Array<number | null> = [takeServedCompaction(sql)];
      setView(sql, addCompaction(sql, 4));
      seen.push(takeServedCompaction(sql), takeServedCompaction(sql));
      // A new generation empties the view; a later compaction of it is named again.
      setView(sql, 0);
      seen.push(takeServedCompaction(sql));
      setView(sql, addCompaction(sql, 1));
      seen.push(takeServedCompaction(sql), takeServedCompaction(sql));
      return seen;
    });
    expect(served).toEqual([null, 4, null, null, 1, null]);
  });

  it("names the view's compaction once in a session from before schema v10", async () => {
    const served = await runInDurableObject(freshObject(), (_instance, state) => {
      const sql = state.storage.sql;
      migrate(state.storage, 9);
      sql.exec(
        `INSERT INTO condense_session (id, user_id, session_id, epoch, created_at, updated_at, message_count)
         VALUES (1, 'alice', 's', 'e', 1, 2, 9)`,
      );
      setView(sql, addCompaction(sql, 2));
      migrate(state.storage);
      return [takeServedCompaction(sql), takeServedCompaction(sql)];
    });
    expect(served).toEqual([2, null]);
  });
});
