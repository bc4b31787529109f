/**
 * @module sqlite/insert-row
 * A table's columns as its row's camelCase fields, and one row inserted from
 * such a row. The store's modules speak the domain (`coveredSeq`, `fromSeq`):
 * a table's column map, kept beside the module's SQL, is the one place a field
 * meets its snake_case column, for an INSERT (each value named beside its
 * column: the hand-written form, a column list, as many `?` and the values in
 * the same order, is where such statements go wrong) and for the aliased
 * column list a SELECT or RETURNING reads rows back with. Table and column
 * names come from the code, never from a request.
 */

/** Each field of `Row` and the column that stores it. */
export type ColumnMap<Row> = { readonly [Field in keyof Row]-?: string };

/**
 * A table whose rows are `Row`; `Generated` names the fields SQLite fills in itself (an
 * `AUTOINCREMENT` id), which an insert may leave out: every other field is written.
 */
export interface Table<Row, Generated extends keyof Row = never> {
  readonly name: string;
  readonly columns: ColumnMap<Row>;
  /** The columns aliased as the row's fields (`covered_seq AS coveredSeq, …`): a SELECT's list. */
  readonly select: string;
  /** The fields SQLite fills in itself. */
  readonly generated: readonly Generated[];
  /** Columns set to the same value in every row: a single-row table's key (`id = 1`). */
  readonly fixed: Readonly<Record<string, SqlStorageValue>>;
}

export interface TableOptions<Generated> {
  generated?: readonly Generated[];
  fixed?: Record<string, SqlStorageValue>;
}

/** The table `name` whose rows are `Row`, stored in `columns`. */
export function table<
  Row extends Record<string, SqlStorageValue>,
  Generated extends keyof Row = never,
>(
  name: string,
  columns: ColumnMap<Row>,
  { generated = [], fixed = {} }: TableOptions<Generated> = {},
): Table<Row, Generated> {
  const select = Object.entries<string>(columns)
    .map(([field, column]) => (field === column ? column : `${column} AS ${field}`))
    .join(", ");
  return { name, columns, select, generated, fixed };
}

export interface InsertOptions {
  /** `OR REPLACE`: a row with the same key is replaced. */
  replace?: boolean;
  /** The cursor yields the row as stored (with its generated id), read as the table's fields. */
  returning?: boolean;
}

/** A row to insert: every field, those SQLite generates optional. */
export type NewRow<Row, Generated extends keyof Row> = Omit<Row, Generated> &
  Partial<Pick<Row, Generated>>;

/** Inserts `row` into `into`. */
export function insertRow<
  Row extends Record<string, SqlStorageValue>,
  Generated extends keyof Row = never,
>(
  sql: SqlStorage,
  into: Table<Row, Generated>,
  row: NewRow<Row, Generated>,
  options: InsertOptions = {},
): SqlStorageCursor<Row> {
  const values: Record<string, SqlStorageValue> = { ...into.fixed };
  for (const [field, value] of Object.entries(row) as [keyof Row, SqlStorageValue | undefined][]) {
    if (value !== undefined) values[into.columns[field]] = value;
  }
  const columns = Object.keys(values);
  return sql.exec<Row>(
    `INSERT ${options.replace === true ? "OR REPLACE " : ""}INTO ${into.name} (${columns.join(", ")})
     VALUES (${columns.map(() => "?").join(", ")})${options.returning === true ? ` RETURNING ${into.select}` : ""}`,
    ...Object.values(values),
  );
}
