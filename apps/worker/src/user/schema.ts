/**
 * @module user/schema
 * The SQLite schema of a user's Durable Object (`UserObject`, one per
 * authenticated user). Its tables are namespaced `condense_user_*`, apart from
 * the session objects' `condense_*`, and `condense_user_schema_version`
 * records which migrations ran, so a deployed object upgrades itself the first
 * time new code touches it.
 *
 * Tables (v1):
 * - `condense_user_sessions`: the user's sessions as their objects last reported them (model, created,
 *   last active, message count, context tokens, compactions); listed newest active first through the
 *   index on (last_active_at, session_id), which is also the keyset of the list's cursor.
 * - `condense_user_memories`: the user's memory entries. `num` is the integer key (newest first in the
 *   list, and the rowid of the full-text index); `id` the public `mem_…` id.
 * - `condense_user_memories_fts`: an FTS5 index of each entry's text (rowid = `num`), kept in step with
 *   the entries in the same transaction; BM25 ranks search results and the memories put in a context.
 *
 * v2:
 * - `condense_user_token_usage`: tokens the user spent through the gateway on the deployment's own
 *   provider keys, per UTC day (`YYYY-MM-DD`), for the spending guard (`user/token-usage`).
 */

import { type Migration, runMigrations } from "../sqlite/migrations";

const migrations: Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE condense_user_sessions (
         session_id TEXT PRIMARY KEY,
         model TEXT NOT NULL,
         created_at INTEGER NOT NULL,
         last_active_at INTEGER NOT NULL,
         message_count INTEGER NOT NULL,
         tokens INTEGER NOT NULL,
         compactions INTEGER NOT NULL
       )`,
      "CREATE INDEX condense_user_sessions_active ON condense_user_sessions (last_active_at DESC, session_id DESC)",
      `CREATE TABLE condense_user_memories (
         num INTEGER PRIMARY KEY AUTOINCREMENT,
         id TEXT NOT NULL UNIQUE,
         text TEXT NOT NULL,
         kind TEXT NOT NULL,
         source_session TEXT,
         source_seq INTEGER,
         created_at INTEGER NOT NULL,
         updated_at INTEGER NOT NULL
       )`,
      "CREATE VIRTUAL TABLE condense_user_memories_fts USING fts5(text)",
    ],
  },
  {
    version: 2,
    statements: [
      `CREATE TABLE condense_user_token_usage (
         day TEXT PRIMARY KEY,
         tokens INTEGER NOT NULL
       )`,
    ],
  },
];

export const USER_SCHEMA_VERSION = 2;

/** Runs the migrations the object's storage has not run yet, each in its own transaction. */
export function migrateUser(storage: DurableObjectStorage): void {
  runMigrations(storage, "condense_user_schema_version", migrations);
}
