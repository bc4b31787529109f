import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { insertRow, table } from "./insert-row";

/** A fresh, never-used object to borrow SQLite storage from. */
function freshObject() {
  return env.SESSIONS.get(env.SESSIONS.idFromName(`insert-row-test-${crypto.randomUUID()}`));
}

type Row = { id: number; firstName: string; itemCount: number; note: string | null };
const rows = table<Row, "id">(
  "t",
  {
    id: "id",
    firstName: "first_name",
    itemCount: "item_count",
    note: "note",
  },
  { generated: ["id"] },
);

describe("insertRow", () => {
  it("stores each field in its column, returns the stored row as fields when asked, and replaces when asked", async () => {
    await runInDurableObject(freshObject(), (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec(
        "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, first_name TEXT, item_count INTEGER, note TEXT)",
      );
      // Fields in another order than the table's columns: values follow their names.
      const stored = insertRow(
        sql,
        rows,
        { note: null, itemCount: 2, firstName: "x" },
        { returning: true },
      ).one();
      expect(stored).toEqual({ id: 1, firstName: "x", itemCount: 2, note: null });

      insertRow(sql, rows, { id: 1, firstName: "y", itemCount: 3, note: "z" }, { replace: true });
      expect(sql.exec("SELECT * FROM t").toArray()).toEqual([
        { id: 1, first_name: "y", item_count: 3, note: "z" },
      ]);
      // Without `replace`, the same key is refused.
      expect(() =>
        insertRow(sql, rows, { id: 1, firstName: "w", itemCount: 4, note: null }),
      ).toThrow();
    });
  });

  it("writes a single-row table's fixed key with every row", async () => {
    await runInDurableObject(freshObject(), (_instance, state) => {
      const sql = state.storage.sql;
      sql.exec("CREATE TABLE s (id INTEGER PRIMARY KEY CHECK (id = 1), item_count INTEGER)");
      const single = table<{ itemCount: number }>(
        "s",
        { itemCount: "item_count" },
        { fixed: { id: 1 } },
      );
      insertRow(sql, single, { itemCount: 1 }, { replace: true });
      insertRow(sql, single, { itemCount: 2 }, { replace: true });
      expect(sql.exec(`SELECT ${single.select} FROM s`).toArray()).toEqual([{ itemCount: 2 }]);
    });
  });
});
