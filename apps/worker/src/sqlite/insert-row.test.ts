import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { insertRow } from "./insert-row";

/** A fresh, never-used object to borrow SQLite storage from. */
function freshObject() {
  return env.SESSIONS.get(env.SESSIONS.idFromName(`insert-row-test-${crypto.randomUUID()}`));
}

describe("insertRow", () => {
  it("stores each value in its column, returns the stored row when asked, and replaces when asked", async () => {
    await runInDurableObject(freshObject(), (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, a TEXT, b INTEGER, c TEXT)");
      // Columns in another order than the table's: values follow their names.
      const stored = insertRow<{ id: number; a: string; b: number; c: string | null }>(
        sql,
        "t",
        { c: null, b: 2, a: "x" },
        { returning: true },
      ).one();
      expect(stored).toEqual({ id: 1, a: "x", b: 2, c: null });

      insertRow(sql, "t", { id: 1, a: "y", b: 3, c: "z" }, { replace: true });
      expect(sql.exec("SELECT * FROM t").toArray()).toEqual([{ id: 1, a: "y", b: 3, c: "z" }]);
      // Without `replace`, the same key is refused.
      expect(() => insertRow(sql, "t", { id: 1, a: "w", b: 4, c: null })).toThrow();
    });
  });
});
