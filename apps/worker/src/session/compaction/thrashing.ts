/**
 * @module session/compaction/thrashing
 * Compaction that runs again and again because the context refills within a
 * few turns of each one (what agent CLIs' users report most after "it forgot":
 * hundreds of compactions in one session, no progress; issue 33). It is read
 * from the compaction history, no state of its own: the session is thrashing
 * while its last `THRASH_RUN` automatic compactions (manual ones are asked
 * for) each came within `THRASH_TURNS` model turns (assistant messages) of
 * the one before it.
 *
 * While it lasts, compactions move what refills the context, its largest tool
 * outputs (the verbatim tail's included), out to recall before any summary
 * (core's `pruneLargestOutputs`: placeholders naming their call, which the
 * recall tool and `GET /tool-outputs/{callId}` serve whole): usually that is
 * enough, and the compaction neither calls the summarizer nor rewrites the
 * summary and the prompt's cached start. The status reports it
 * (`compaction.thrashing`), and each compaction that runs so warns in its log
 * line.
 *
 * Why 3 turns, 3 times: a compaction leaves the context well under its
 * trigger (the cost policy compacts deep, to a quarter of the window or less,
 * and compacts again past half of it once that pays; the window policy aims a
 * fifth under its limit). Refilling past the trigger within 3 turns takes
 * turns that each add a twelfth (cost) to a twentieth (window) of the window:
 * whole files or long logs read every turn. One quick refill is one large
 * read, two can be two; three in a row mean each compaction buys at most 3
 * turns for its summary call and its cache bust, and that the next will too.
 * Fewer turns would miss agents that read a file every other turn; more would
 * call ordinary progress in a small window thrashing.
 */

/** A compaction within this many model turns of the one before it came from a quick refill. */
export const THRASH_TURNS = 3;
/** Quick refills in a row that make a session thrashing. */
export const THRASH_RUN = 3;
/** Compactions of the history read back at most. */
const HISTORY_READ = 50;

/** A run of quick refills: the session compacts every few turns. */
export interface Thrashing {
  /** When the run began: the compaction before its first quick refill (ms since the epoch). */
  since: number;
  /** Quick refills in a row, the latest compaction's included. */
  refills: number;
  /** Model turns between each compaction of the run and the one before it, newest first. */
  turnsApart: number[];
}

type Row = { at: number; to_seq: number };

/** The session's thrashing, or undefined when its latest automatic compactions are not a run. */
export function thrashingOf(sql: SqlStorage): Thrashing | undefined {
  const rows = sql
    .exec<Row>(
      `SELECT at, to_seq FROM condense_compactions WHERE trigger != 'manual'
       ORDER BY id DESC LIMIT ?`,
      HISTORY_READ,
    )
    .toArray();
  const turnsApart: number[] = [];
  let since = 0;
  for (let i = 0; i + 1 < rows.length; i++) {
    const newer = rows[i] as Row;
    const older = rows[i + 1] as Row;
    const turns = sql
      .exec<{ n: number }>(
        `SELECT COUNT(*) AS n FROM condense_transcript
         WHERE role = 'assistant' AND seq > ? AND seq <= ?`,
        older.to_seq,
        newer.to_seq,
      )
      .one().n;
    if (turns > THRASH_TURNS) break;
    turnsApart.push(turns);
    since = older.at;
  }
  if (turnsApart.length < THRASH_RUN) return undefined;
  return { since, refills: turnsApart.length, turnsApart };
}
