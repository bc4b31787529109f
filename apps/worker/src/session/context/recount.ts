/**
 * @module session/context/recount
 * Recounts a session's stored token counts when its model changes. Counts
 * depend on the model (o200k or cl100k, plus a safety margin for models whose
 * tokenizer is estimated), and every limit, trigger and compaction reads the
 * stored counts, so they must always be the current model's.
 *
 * The recount is eager, inside the transaction that changes the model: model
 * changes are rare, and it keeps one invariant (stored counts are the current
 * model's) that the SQL sums of `contextSize` and the compaction snapshot can
 * rely on, where a lazy per-row model tag would have to be checked on every read.
 */

import { messageTokens, toCanonical } from "@condense/core";
import { saveCalibration, saveRecountedTokens } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { readViewState } from "../store/view-state";
import { messagesTokens } from "./context-measure";

/** Transcript messages recounted per read, so a long transcript is never loaded whole. */
const PAGE_MESSAGES = 256;
const PAGE_BYTES = 8 * 1024 * 1024;

/** Recounts the transcript and the view for `model`; run it inside the transaction that changes the model. */
export function recountTokens(scope: SessionScope, model: string): void {
  const { sql, store } = scope;
  let after = 0;
  let transcriptTokens = 0;
  for (;;) {
    const rows = store.readTranscript(after, PAGE_MESSAGES, PAGE_BYTES);
    const last = rows.at(-1);
    if (last === undefined) break;
    for (const row of rows) {
      const tokens = messageTokens(row.message, model);
      transcriptTokens += tokens;
      if (tokens !== row.tokens) store.setTranscriptTokens(row.key, tokens);
    }
    after = last.key;
  }
  saveRecountedTokens(sql, transcriptTokens);

  const view = readViewState(sql);
  if (view === undefined) return;
  const rows = store.readView();
  let viewTokens = 0;
  if (view.strategy === "openai") {
    // OpenAI Responses items have no count of their own: as at commit, the total of their canonical
    // messages is spread evenly over them.
    const canonical = toCanonical({
      format: "responses",
      messages: rows.map((row) => row.message),
    });
    const perItem =
      rows.length === 0 ? 0 : Math.ceil(messagesTokens(canonical, model) / rows.length);
    for (const row of rows) store.setViewTokens(row.key, perItem);
    viewTokens = perItem * rows.length;
  } else {
    for (const row of rows) {
      const tokens = messageTokens(row.message, model);
      viewTokens += tokens;
      if (tokens !== row.tokens) store.setViewTokens(row.key, tokens);
    }
  }
  sql.exec("UPDATE condense_view_state SET tokens = ? WHERE id = 1", viewTokens);
}

/**
 * Stored counts are the current model's: a change of model (`before` → `after`) recounts them and
 * starts the calibration afresh, since a ratio measured for one tokenizer says nothing about another.
 * Run it in the caller's transaction.
 */
export function recountIfModelChanged(scope: SessionScope, before: string, after: string): void {
  const { sql } = scope;
  if (before === after) return;
  recountTokens(scope, after);
  saveCalibration(sql, { ratio: 1, samples: 0 });
}
