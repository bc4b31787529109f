/**
 * @module session/settings-update
 * `PATCH /v1/sessions/{id}`: a change of settings in one transaction. The
 * whole effective settings are checked first (settings the engine would refuse
 * would make every compaction fail), so a refused change writes nothing and
 * creates no session. A PATCH may come first and creates the session, like an
 * append does. A change of model recounts the stored messages; new limits or
 * a new strategy may compact further than before, and may work where the old
 * settings failed, so the exhausted mark and the failures are cleared.
 */

import { ApiError } from "../api/errors";
import { readWebhookSecret, writeWebhookSecret } from "./compaction/compaction-events";
import { recountIfModelChanged } from "./context/recount";
import {
  clearFailure,
  openSession,
  readSession,
  type SessionKey,
  setExhaustedSeq,
} from "./store/session-record";
import { inTransaction, type SessionScope } from "./store/session-scope";
import {
  checkSettings,
  mergeSettings,
  modelFor,
  readSettings,
  type SettingsUpdate,
  writeSettings,
} from "./store/settings";

/** Applies `update` to the settings of the session of `key` (created if there is none). */
export function updateSettings(
  scope: SessionScope,
  key: SessionKey,
  update: SettingsUpdate,
  env: Env,
): void {
  inTransaction(scope, (sql) => {
    const now = scope.now();
    const current = readSettings(sql);
    const lastModel = readSession(sql)?.lastModel ?? null;
    const merged = mergeSettings(current, update);
    checkSettings(merged, modelFor(merged, lastModel, scope.defaultModel), env);
    const secret =
      update.webhookSecret === undefined ? readWebhookSecret(sql) : update.webhookSecret;
    if (merged.webhookUrl !== null && (secret ?? undefined) === undefined) {
      throw new ApiError(
        400,
        "invalid_options",
        "setting `webhookUrl`: its events are signed, and the session has no `webhookSecret`; send one (16 to 256 characters) in the same PATCH. Nothing was changed",
        { setting: "webhookSecret" },
      );
    }
    // An app can configure a session (a window the model table does not know) before its first append.
    const session = openSession(sql, key, now);
    const before = modelFor(current, session.lastModel, scope.defaultModel);
    writeSettings(sql, update);
    if (update.webhookSecret !== undefined) writeWebhookSecret(sql, update.webhookSecret);
    const after = modelFor(readSettings(sql), session.lastModel, scope.defaultModel);
    recountIfModelChanged(scope, before, after);
    setExhaustedSeq(sql, null, now);
    clearFailure(sql);
  });
}
