/**
 * @module session/turns/message-hashes
 * `condense_message_hashes`: the canonical-content hash of each transcript
 * message (`messages/history-hash`), which the gateway compares with the
 * hashes of the history a request sends. A gateway append writes the hashes
 * the Worker computed; messages appended through `/messages` (or before the
 * table existed) get theirs on the next gateway turn, which computes them in
 * its transaction: appends never wait for it.
 */

import { messageHashesSync } from "../../messages/history-hash";
import type { SessionScope } from "../store/session-scope";

/** Messages hashed per read, so a long transcript is never loaded whole. */
const PAGE_MESSAGES = 256;
const PAGE_BYTES = 8 * 1024 * 1024;

/** The stored hashes of seqs `fromSeq`.. in order, stopping at the first seq that has none. */
export function storedHashes(sql: SqlStorage, fromSeq: number, lastSeq: number): string[] {
  if (lastSeq < fromSeq) return [];
  // One row for the whole range: a gateway turn reads every hash of its history, and a row per hash
  // through the cursor cost more than the query. `seq` is the key, so a count equal to the range's
  // size means no seq is missing; otherwise the rows are read one by one up to the first gap.
  const whole = sql
    .exec<{ n: number; joined: string | null }>(
      `SELECT COUNT(*) AS n, group_concat(content_hash, ',') AS joined
       FROM (SELECT content_hash FROM condense_message_hashes WHERE seq >= ? AND seq <= ? ORDER BY seq)`,
      fromSeq,
      lastSeq,
    )
    .one();
  if (whole.n === lastSeq - fromSeq + 1 && whole.joined !== null) return whole.joined.split(",");
  const hashes: string[] = [];
  let expected = fromSeq;
  for (const row of sql.exec<{ seq: number; content_hash: string }>(
    "SELECT seq, content_hash FROM condense_message_hashes WHERE seq >= ? AND seq <= ? ORDER BY seq",
    fromSeq,
    lastSeq,
  )) {
    if (row.seq !== expected) break;
    hashes.push(row.content_hash);
    expected++;
  }
  return hashes;
}

/** Stores the hashes of seqs `firstSeq`, `firstSeq + 1`…; run it in the append's transaction. */
export function saveHashes(sql: SqlStorage, firstSeq: number, hashes: readonly string[]): void {
  hashes.forEach((hash, index) => {
    sql.exec(
      "INSERT OR REPLACE INTO condense_message_hashes (seq, content_hash) VALUES (?, ?)",
      firstSeq + index,
      hash,
    );
  });
}

/** The first seq from `fromSeq` on that has a message and no hash, or undefined. */
function firstMissing(sql: SqlStorage, fromSeq: number): number | undefined {
  return sql
    .exec<{ seq: number }>(
      `SELECT t.seq AS seq FROM condense_transcript t
       LEFT JOIN condense_message_hashes h ON h.seq = t.seq
       WHERE t.seq >= ? AND h.seq IS NULL ORDER BY t.seq LIMIT 1`,
      fromSeq,
    )
    .toArray()[0]?.seq;
}

/** Hashes every message from `fromSeq` on that has no hash yet; run it in the caller's transaction. */
export function hashMissing(scope: SessionScope, fromSeq: number): void {
  const { sql, store } = scope;
  let from = fromSeq;
  for (;;) {
    const seq = firstMissing(sql, from);
    if (seq === undefined) return;
    const rows = store.readTranscript(seq - 1, PAGE_MESSAGES, PAGE_BYTES);
    const last = rows.at(-1);
    if (last === undefined) return;
    from = last.key + 1;
    const hashes = messageHashesSync(rows.map((row) => row.message));
    rows.forEach((row, index) => {
      const hash = hashes[index];
      if (hash === undefined) return;
      sql.exec(
        "INSERT OR IGNORE INTO condense_message_hashes (seq, content_hash) VALUES (?, ?)",
        row.key,
        hash,
      );
    });
  }
}
