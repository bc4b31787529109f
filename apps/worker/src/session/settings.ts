/**
 * @module session/settings
 * Per-session settings, stored in `condense_settings` as one JSON value per
 * key (a missing key means the default), and the model they select.
 */

import type { ChatMessage } from "@condense/core";
import type { SessionSettingsBody } from "../api/schemas";

/** Settings as stored; `null` means the default applies. */
export type SessionSettings = Omit<SessionSettingsBody, "pinned"> & { pinned: ChatMessage[] };

/** A change: fields left out (or undefined) keep their value, `null` restores the default. */
export type SettingsUpdate = Partial<SessionSettings>;

export const DEFAULT_SETTINGS: Readonly<SessionSettings> = {
  model: null,
  contextWindow: null,
  threshold: null,
  reserveTokens: null,
  tailTokens: null,
  identifierPolicy: null,
  identifierInstructions: null,
  pinned: [],
  summarizerModel: null,
  strategy: "local",
};

/** The model of a session that names none and whose deployment sets no `DEFAULT_MODEL`. */
const FALLBACK_MODEL = "gpt-4o";

function isSettingName(name: string): name is keyof SessionSettings {
  return Object.hasOwn(DEFAULT_SETTINGS, name);
}

export function readSettings(sql: SqlStorage): SessionSettings {
  const settings: SessionSettings = { ...DEFAULT_SETTINGS };
  for (const row of sql.exec<{ key: string; value: string }>(
    "SELECT key, value FROM condense_settings",
  )) {
    if (isSettingName(row.key)) Object.assign(settings, { [row.key]: JSON.parse(row.value) });
  }
  return settings;
}

/** Applies `update`; run it inside the caller's transaction. */
export function writeSettings(sql: SqlStorage, update: SettingsUpdate): void {
  for (const [name, value] of Object.entries(update)) {
    if (!isSettingName(name) || value === undefined) continue;
    if (value === null) sql.exec("DELETE FROM condense_settings WHERE key = ?", name);
    else
      sql.exec(
        "INSERT OR REPLACE INTO condense_settings (key, value) VALUES (?, ?)",
        name,
        JSON.stringify(value),
      );
  }
}

/** The session's model: its setting, else the model of its last append, else the deployment's default. */
export function modelFor(
  settings: SessionSettings,
  lastModel: string | null,
  defaultModel: string | undefined,
): string {
  return settings.model ?? lastModel ?? defaultModel ?? FALLBACK_MODEL;
}
