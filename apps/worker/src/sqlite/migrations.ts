/**
 * @module sqlite/migrations
 * Versioned schema migrations for a Durable Object's SQLite storage: each
 * object type lists its migrations and names its own version table, and a
 * deployed object upgrades itself the first time new code touches it.
 */

export interface Migration {
  version: number;
  statements: string[];
}

/**
 * Applies the migrations `versionTable` does not record yet, each in its own transaction (its
 * statements and its version row commit together). `target` stops earlier (tests build old schemas).
 */
export function runMigrations(
  storage: DurableObjectStorage,
  versionTable: string,
  migrations: readonly Migration[],
  target = Number.POSITIVE_INFINITY,
): void {
  const sql = storage.sql;
  sql.exec(`CREATE TABLE IF NOT EXISTS ${versionTable} (version INTEGER NOT NULL)`);
  const row = sql
    .exec<{ version: number | null }>(`SELECT MAX(version) AS version FROM ${versionTable}`)
    .one();
  const current = row.version ?? 0;
  for (const migration of migrations) {
    if (migration.version <= current || migration.version > target) continue;
    storage.transactionSync(() => {
      for (const statement of migration.statements) sql.exec(statement);
      sql.exec(`INSERT INTO ${versionTable} (version) VALUES (?)`, migration.version);
    });
  }
}
