/**
 * @module sqlite/insert-row
 * One row inserted from an object of column → value, so a wide INSERT names
 * each value beside its column: the hand-written form (a column list, as many
 * `?` and the values in the same order) is where such statements go wrong.
 * Table and column names come from the code, never from a request.
 */

export interface InsertOptions {
  /** `OR REPLACE`: a row with the same key is replaced. */
  replace?: boolean;
  /**
   * The cursor yields the row as stored (with its generated id): `true` for
   * `RETURNING *`, or a column list (with `AS` aliases) for `RETURNING <list>`.
   */
  returning?: boolean | string;
}

function returningClause(returning: InsertOptions["returning"]): string {
  if (returning === undefined || returning === false) return "";
  return ` RETURNING ${returning === true ? "*" : returning}`;
}

/** Inserts `row` into `table`. */
export function insertRow<T extends Record<string, SqlStorageValue>>(
  sql: SqlStorage,
  table: string,
  row: Record<string, SqlStorageValue>,
  options: InsertOptions = {},
): SqlStorageCursor<T> {
  const columns = Object.keys(row);
  return sql.exec<T>(
    `INSERT ${options.replace === true ? "OR REPLACE " : ""}INTO ${table} (${columns.join(", ")})
     VALUES (${columns.map(() => "?").join(", ")})${returningClause(options.returning)}`,
    ...Object.values(row),
  );
}
