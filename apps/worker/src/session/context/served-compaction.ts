/**
 * @module session/context/served-compaction
 * Which compaction the context a gateway turn sends comes from, named once:
 * the turn that first sends a compaction's result says its tier in
 * `X-Condense-Compaction`, whether it ran in that turn, in an overflow retry
 * or in the background since the previous turn; later turns that send the
 * same view say `none`. The session keeps the id of the compaction whose view
 * it last served (`condense_session.served_compaction`, schema v10).
 */

import { writeSession } from "../store/session-record";

/**
 * The tier of the compaction whose view the context served now comes from, when the context served
 * before did not come from it (else null), and records it as served. Run it where the context is
 * served, in the same synchronous step as the read of the view.
 */
export function takeServedCompaction(sql: SqlStorage): number | null {
  const row = sql
    .exec<{ viewed: number | null; served: number | null }>(
      `SELECT (SELECT compaction_id FROM condense_view_state WHERE id = 1) AS viewed,
              served_compaction AS served
       FROM condense_session WHERE id = 1`,
    )
    .toArray()[0];
  if (row === undefined) return null;
  const viewed = row.viewed ?? 0;
  if (viewed === row.served) return null;
  writeSession(sql, "UPDATE condense_session SET served_compaction = ? WHERE id = 1", viewed);
  if (viewed === 0) return null;
  return (
    sql
      .exec<{ tier: number }>("SELECT tier FROM condense_compactions WHERE id = ?", viewed)
      .toArray()[0]?.tier ?? null
  );
}
