/**
 * @module session/store/schema
 * The SQLite schema of a session's Durable Object. Every table is namespaced
 * `condense_*`; `condense_schema_version` records which migrations ran, so a
 * deployed object upgrades itself the first time new code touches it.
 *
 * Tables (v1):
 * - `condense_session`: the one row describing the session (owner, epoch, counters, cooldown, calibration).
 * - `condense_settings`: per-session settings as JSON values.
 * - `condense_transcript`: every appended message, never rewritten: seq, role, tokens (counted for the session's current model, recounted when it changes), JSON body
 *   (first chunk inline, the rest in `condense_chunks`).
 * - `condense_view` + `condense_view_state`: the compacted messages of the last compaction and the transcript
 *   seq they cover; the context is the view plus every transcript message after that seq.
 * - `condense_chunks`: the 2nd..nth 1 MiB chunks of large transcript (`t`) and view (`v`) messages.
 * - `condense_compactions`: the compaction history with summaries.
 * - `condense_tool_outputs`: tool_call_id → the transcript row holding its output, and the compaction that
 *   pruned it (one row per call since v5).
 * - `condense_idempotency`: answers kept for `Idempotency-Key` retries.
 *
 * v2: `condense_session.ledger`, the identifier ledger (JSON) the last summarizing compaction returned,
 * handed to the next one; NULL in sessions from before (the engine then reads identifiers from the
 * previous summary, as it did).
 *
 * v3: `condense_compactions.duration_ms`, how long a compaction took from its snapshot to its commit;
 * NULL for compactions recorded before.
 *
 * v4: on `condense_session`, the window a provider's overflow error stated (`learned_window`, for the
 * model in `learned_window_model`), and the token estimate and last seq of the context last served
 * (`served_tokens`, `served_seq`), which a later overflow report's count is compared with. All NULL in
 * sessions from before (no learned window; overflow reports compare with the current context).
 *
 * v5: `condense_tool_outputs` holds one row per tool *call*, keyed by (tool_call_id, occurrence): an id
 * may come back once its call is answered (servers that number calls `call_0`… every turn), so the id
 * alone no longer names one output. `seq` is the transcript row of the call's result (NULL while it
 * awaits it, unique), `call_seq` the row of the assistant message that made the call. Rows of v4 become
 * occurrence 1 of their id (ids were unique then) with no `call_seq`.
 *
 * v6: compaction failures. On `condense_session`: `failed_attempts` (configured compactions that threw
 * in a row), `last_failure_at`, `last_failure` (what went wrong) and `retry_at` (when the alarm tries
 * again); on `condense_compactions`: `fallback_attempts` and `fallback_error`, set on a compaction that
 * is the deterministic fallback after the configured path threw. 0 / NULL in sessions from before.
 *
 * v7 (the gateway): `condense_generations`, where each generation of the session starts (`first_seq`):
 * a history a gateway request sent that did not extend the session's started a new one, and the
 * context is built from the current generation only (no row: one generation from seq 1).
 * `condense_message_hashes`, the canonical-content hash of a transcript message (`messages/history-hash`),
 * written at a gateway append and computed on first use for messages appended otherwise or before.
 * `condense_tool_outputs.closed_by_generation`: a call left unanswered when a new generation started
 * counts as answered from then on (its id may come back; no later result may answer it).
 *
 * v8: `condense_transcript_tokens`, an index on (seq, tokens): the context's size is the sum of the
 * tokens after the view, taken on every append and gateway turn, and summing it from the table read
 * every message's page (bodies are stored inline) where the index holds only the two numbers.
 *
 * v9 (recall): `condense_search`, an FTS5 table (tokenizer `porter unicode61`, diacritics removed) with
 * the text of every transcript message in pieces of 8 Ki characters, rowid = seq × 4096 + piece:
 * `body` (text parts, tool outputs, tool-call arguments) and `names` (tool names and tool-call ids)
 * are indexed; `role`, `tool_call_id` and `tool_name` are stored beside them (`session/recall/search-index`). It keeps its own copy of the text, so
 * snippets need no transcript read. Rows are written at append in the append's transaction, and never
 * removed (compaction and pruning change the context, not the transcript).
 * `condense_search_state`: the backfill of the messages appended before v9, `backfill_to` (the last
 * seq then) and `backfill_cursor` (indexed up to it); the backfill is complete when they meet (at
 * once in a session that had no messages).
 *
 * v10 (gateway headers): `condense_session.served_compaction`, the compaction whose view the context
 * last served came from (0: none), so that a gateway turn's `X-Condense-Compaction` names a
 * compaction, background ones included, the first time its result is sent
 * (`session/context/served-compaction`). NULL in sessions from before: the next context served names its
 * view's compaction once.
 *
 * v11 (request overhead): `condense_session.overhead_tokens`, the engine tokens of what the latest
 * gateway request sent beside its messages that the provider counts as input (its tool
 * definitions: `gateway/plans/request-overhead`). The window keeps room for it, background compactions
 * included, and the calibration leaves it out. 0 in sessions from before, and in sessions only
 * ever appended to through `/messages`.
 *
 * v12 (the bill, issue 19): on `condense_session`, the cost policy's state carried from turn to turn
 * (`cache_excess_tokens`, `cache_compacted_tokens`, `cache_stable_tokens`: core's `CacheState`, NULL
 * before the first compaction, when the policy decides statelessly) and the memory block frozen until
 * the next compaction (`memory_block`, JSON of the inserted message and its figures, chosen for the
 * view of `memory_block_compaction`), so the prompt's prefix stays byte-identical between compactions.
 * `condense_turns`: every model request the session served (`GET /context`, a gateway turn), with its
 * size, the prefix an earlier request sent unchanged, the whole history's size beside it and the
 * provider's reported usage (cached tokens read and written) once an answer or append carries it:
 * the session's bill (`session/context/served-turns`). Empty in sessions from before.
 *
 * v13 (side requests, issue 33): `condense_side_requests`, the gateway requests the session answered
 * without taking them into its transcript (`session/turns/side-requests`): why, the generation then, the
 * model, and when the answer came; their history and answer are JSON in `condense_chunks` (owners
 * `s` and `a`). Empty in sessions from before.
 *
 * v14 (compaction events, issue 33): `condense_events`, the session's compaction events
 * (`session/compaction/compaction-events`): the event's JSON, and its delivery to the session's webhook
 * (`none` without one, `pending`, `delivered`, `failed`), attempts, when the next is due, and the
 * last failure. Empty in sessions from before.
 *
 * v15 (the turn log's bound, issue 32): `condense_turns.rolled`, NULL for a turn; on a row that
 * rolls up older turns (one per stretch between compactions, `session/context/served-turns`), the
 * JSON of their bill's integer sums (core's `TurnTotals`), the row's other columns its last turn's.
 * `cache_miss_reason` and `cache_missed_tokens`: why the provider's cache missed on the turn, when
 * its answer said (Anthropic's `diagnostics.cache_miss_reason`); NULL otherwise and in rollups.
 *
 * v16 (summaries through the cache, issue 32): `condense_compactions.summary_usage`, the JSON of
 * what the summary's requests through the cache cost as the provider counted them (input, cache
 * read and write, output tokens); NULL for every other summary and before.
 *
 * v17 (cache diagnostics, issue 32): `condense_turns.answer_id`, the provider's id of the turn's
 * answer (Anthropic's `msg_…`) when its request opted in to cache diagnostics: the next request
 * names it as `diagnostics.previous_message_id`; NULL otherwise and before.
 *
 * v18 (the alarm's due times): `condense_session.pending_due_at`, when the pending background
 * compaction is due (its mark's time plus `COMPACTION_DELAY_MS`, or the grace of `cachedSummaries`),
 * so that the alarm, fired sooner for something else, leaves it until then; NULL when none is pending,
 * and for one marked before (due at once, as it was).
 */

import { type Migration, runMigrations } from "../../sqlite/migrations";

const migrations: Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE condense_session (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        user_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        epoch TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        last_model TEXT,
        message_count INTEGER NOT NULL DEFAULT 0,
        transcript_tokens INTEGER NOT NULL DEFAULT 0,
        cooldown_until INTEGER,
        calibration_ratio REAL NOT NULL DEFAULT 1,
        calibration_samples INTEGER NOT NULL DEFAULT 0,
        pending_trigger TEXT,
        exhausted_seq INTEGER
      )`,
      "CREATE TABLE condense_settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
      `CREATE TABLE condense_transcript (
        seq INTEGER PRIMARY KEY,
        role TEXT NOT NULL,
        tokens INTEGER NOT NULL,
        byte_length INTEGER NOT NULL,
        chunk_count INTEGER NOT NULL,
        body BLOB NOT NULL,
        created_at INTEGER NOT NULL
      )`,
      `CREATE TABLE condense_chunks (
        owner TEXT NOT NULL,
        id INTEGER NOT NULL,
        idx INTEGER NOT NULL,
        data BLOB NOT NULL,
        PRIMARY KEY (owner, id, idx)
      )`,
      `CREATE TABLE condense_view (
        pos INTEGER PRIMARY KEY,
        role TEXT NOT NULL,
        tokens INTEGER NOT NULL,
        byte_length INTEGER NOT NULL,
        chunk_count INTEGER NOT NULL,
        body BLOB NOT NULL
      )`,
      `CREATE TABLE condense_view_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        covered_seq INTEGER NOT NULL,
        compaction_id INTEGER NOT NULL,
        tokens INTEGER NOT NULL,
        summary TEXT,
        strategy TEXT NOT NULL,
        openai_items TEXT,
        openai_endpoint TEXT,
        openai_key_fingerprint TEXT
      )`,
      `CREATE TABLE condense_compactions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        trigger TEXT NOT NULL,
        strategy TEXT NOT NULL,
        tier INTEGER NOT NULL,
        tokens_before INTEGER NOT NULL,
        tokens_after INTEGER NOT NULL,
        from_seq INTEGER NOT NULL,
        to_seq INTEGER NOT NULL,
        summary TEXT,
        summarizer TEXT,
        failure_kind TEXT,
        failure_message TEXT,
        pruned_count INTEGER NOT NULL,
        passes INTEGER NOT NULL
      )`,
      `CREATE TABLE condense_tool_outputs (
        tool_call_id TEXT PRIMARY KEY,
        tool_name TEXT,
        seq INTEGER,
        pruned_by INTEGER
      )`,
      `CREATE TABLE condense_idempotency (
        key TEXT NOT NULL,
        route TEXT NOT NULL,
        body_hash TEXT NOT NULL,
        status INTEGER NOT NULL,
        response TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (route, key)
      )`,
      "CREATE INDEX condense_idempotency_created ON condense_idempotency (created_at)",
    ],
  },
  {
    version: 2,
    statements: ["ALTER TABLE condense_session ADD COLUMN ledger TEXT"],
  },
  {
    version: 3,
    statements: ["ALTER TABLE condense_compactions ADD COLUMN duration_ms INTEGER"],
  },
  {
    version: 4,
    statements: [
      "ALTER TABLE condense_session ADD COLUMN learned_window INTEGER",
      "ALTER TABLE condense_session ADD COLUMN learned_window_model TEXT",
      "ALTER TABLE condense_session ADD COLUMN served_tokens INTEGER",
      "ALTER TABLE condense_session ADD COLUMN served_seq INTEGER",
    ],
  },
  {
    version: 5,
    statements: [
      `CREATE TABLE condense_tool_calls (
        tool_call_id TEXT NOT NULL,
        occurrence INTEGER NOT NULL,
        tool_name TEXT,
        call_seq INTEGER,
        seq INTEGER UNIQUE,
        pruned_by INTEGER,
        PRIMARY KEY (tool_call_id, occurrence)
      )`,
      `INSERT INTO condense_tool_calls (tool_call_id, occurrence, tool_name, seq, pruned_by)
       SELECT tool_call_id, 1, tool_name, seq, pruned_by FROM condense_tool_outputs`,
      "DROP TABLE condense_tool_outputs",
      "ALTER TABLE condense_tool_calls RENAME TO condense_tool_outputs",
    ],
  },
  {
    version: 6,
    statements: [
      "ALTER TABLE condense_session ADD COLUMN failed_attempts INTEGER NOT NULL DEFAULT 0",
      "ALTER TABLE condense_session ADD COLUMN last_failure_at INTEGER",
      "ALTER TABLE condense_session ADD COLUMN last_failure TEXT",
      "ALTER TABLE condense_session ADD COLUMN retry_at INTEGER",
      "ALTER TABLE condense_compactions ADD COLUMN fallback_attempts INTEGER",
      "ALTER TABLE condense_compactions ADD COLUMN fallback_error TEXT",
    ],
  },
  // ---- gateway (v7): generations, message hashes, calls closed by a new generation
  {
    version: 7,
    statements: [
      `CREATE TABLE condense_generations (
        generation INTEGER PRIMARY KEY,
        first_seq INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      )`,
      `CREATE TABLE condense_message_hashes (
        seq INTEGER PRIMARY KEY,
        content_hash TEXT NOT NULL
      )`,
      "ALTER TABLE condense_tool_outputs ADD COLUMN closed_by_generation INTEGER",
    ],
  },
  {
    version: 8,
    statements: ["CREATE INDEX condense_transcript_tokens ON condense_transcript (seq, tokens)"],
  },
  // ---- recall (v9): full-text search over the transcript, and the backfill of older messages
  {
    version: 9,
    statements: [
      `CREATE VIRTUAL TABLE condense_search USING fts5(
        body, names, role UNINDEXED, tool_call_id UNINDEXED, tool_name UNINDEXED,
        tokenize = 'porter unicode61 remove_diacritics 2'
      )`,
      `CREATE TABLE condense_search_state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        backfill_cursor INTEGER NOT NULL,
        backfill_to INTEGER NOT NULL
      )`,
      `INSERT INTO condense_search_state (id, backfill_cursor, backfill_to)
       SELECT 1, 0, COALESCE(MAX(seq), 0) FROM condense_transcript`,
    ],
  },
  // ---- gateway headers (v10): which compaction the context last served came from
  {
    version: 10,
    statements: ["ALTER TABLE condense_session ADD COLUMN served_compaction INTEGER"],
  },
  // ---- request overhead (v11): the tokens a gateway request sends beside its messages
  {
    version: 11,
    statements: [
      "ALTER TABLE condense_session ADD COLUMN overhead_tokens INTEGER NOT NULL DEFAULT 0",
    ],
  },
  // ---- the bill (v12): the cost policy's state, the frozen memory block, the turns served
  {
    version: 12,
    statements: [
      "ALTER TABLE condense_session ADD COLUMN cache_excess_tokens INTEGER",
      "ALTER TABLE condense_session ADD COLUMN cache_compacted_tokens INTEGER",
      "ALTER TABLE condense_session ADD COLUMN cache_stable_tokens INTEGER",
      "ALTER TABLE condense_session ADD COLUMN memory_block TEXT",
      "ALTER TABLE condense_session ADD COLUMN memory_block_compaction INTEGER",
      `CREATE TABLE condense_turns (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        generation INTEGER NOT NULL,
        last_seq INTEGER NOT NULL,
        compaction_id INTEGER NOT NULL,
        model TEXT NOT NULL,
        tokens INTEGER NOT NULL,
        reused_tokens INTEGER NOT NULL,
        whole_tokens INTEGER NOT NULL,
        whole_reused_tokens INTEGER NOT NULL,
        input_tokens INTEGER,
        cache_read_tokens INTEGER,
        cache_write_tokens INTEGER
      )`,
    ],
  },
  // ---- side requests (v13): what the session answered without taking it into its transcript
  {
    version: 13,
    statements: [
      `CREATE TABLE condense_side_requests (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        reason TEXT NOT NULL,
        generation INTEGER NOT NULL,
        model TEXT,
        message_count INTEGER NOT NULL,
        byte_length INTEGER NOT NULL,
        answered_at INTEGER
      )`,
    ],
  },
  // ---- compaction events (v14): the event log and the webhook's deliveries
  {
    version: 14,
    statements: [
      `CREATE TABLE condense_events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        type TEXT NOT NULL,
        body TEXT NOT NULL,
        delivery TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        next_attempt_at INTEGER,
        last_error TEXT
      )`,
      "CREATE INDEX condense_events_due ON condense_events (delivery, next_attempt_at)",
    ],
  },
  // ---- the turn log's bound (v15): old turns rolled up per compaction
  {
    version: 15,
    statements: [
      "ALTER TABLE condense_turns ADD COLUMN rolled TEXT",
      "ALTER TABLE condense_turns ADD COLUMN cache_miss_reason TEXT",
      "ALTER TABLE condense_turns ADD COLUMN cache_missed_tokens INTEGER",
    ],
  },
  // ---- summaries through the cache (v16): what the summary's requests cost
  {
    version: 16,
    statements: ["ALTER TABLE condense_compactions ADD COLUMN summary_usage TEXT"],
  },
  // ---- cache diagnostics (v17): the id of an opted-in turn's answer
  {
    version: 17,
    statements: ["ALTER TABLE condense_turns ADD COLUMN answer_id TEXT"],
  },
  // ---- the alarm's due times (v18): when the pending background compaction is due
  {
    version: 18,
    statements: ["ALTER TABLE condense_session ADD COLUMN pending_due_at INTEGER"],
  },
];

export const SCHEMA_VERSION = migrations.length;

/**
 * Applies the migrations this object has not run yet, each in its own transaction. `target` stops
 * earlier (tests build old schemas with it).
 */
export function migrate(storage: DurableObjectStorage, target = SCHEMA_VERSION): void {
  runMigrations(storage, "condense_schema_version", migrations, target);
}
