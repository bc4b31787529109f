/**
 * @module session/store/settings
 * Per-session settings, stored in `condense_settings` as one JSON value per
 * key (a missing key means the default), the model they select, the engine
 * options they set, and the check that the engine accepts those options:
 * settings it refused would make every compaction of the session fail.
 */

import {
  type ChatMessage,
  type CompactOptions,
  InvalidOptionsError,
  resolveOptions,
} from "@condense/core";
import { ApiError } from "../../api/errors";
import type { SessionSettingsBody } from "../../api/schemas";
import { summarizerFor } from "./summarizer-config";

/** Settings as stored; `null` means the default applies. */
export type SessionSettings = Omit<SessionSettingsBody, "pinned"> & { pinned: ChatMessage[] };

/**
 * A change: fields left out (or undefined) keep their value, `null` restores the default. The
 * webhook's secret is write-only: stored apart (`compaction-events`), never among the settings shown.
 */
export type SettingsUpdate = Partial<SessionSettings> & { webhookSecret?: string | null };

export const DEFAULT_SETTINGS: Readonly<SessionSettings> = {
  model: null,
  contextWindow: null,
  threshold: null,
  reserveTokens: null,
  tailTokens: null,
  policy: null,
  floor: null,
  identifierPolicy: null,
  identifierInstructions: null,
  pinned: [],
  summarizerModel: null,
  strategy: "local",
  recall: false,
  cachedSummaries: false,
  cacheDiagnostics: false,
  memory: false,
  memoryTokens: 2_000,
  webhookUrl: null,
};

/** The model of a session that names none and whose deployment sets no `DEFAULT_MODEL`. */
const FALLBACK_MODEL = "gpt-4o";

function isSettingName(name: string): name is keyof SessionSettings {
  return Object.hasOwn(DEFAULT_SETTINGS, name);
}

/**
 * The settings as read in the current synchronous step, per storage: a turn's modules each ask for
 * them; read once, they are shared until the step ends (the next await), a write (`writeSettings`)
 * or a rollback (`forgetSettings`), as the session's row is (`session-record`).
 */
const reads = new WeakMap<SqlStorage, Readonly<SessionSettings>>();

export function readSettings(sql: SqlStorage): SessionSettings {
  const cached = reads.get(sql);
  if (cached !== undefined) return cached;
  const settings: SessionSettings = { ...DEFAULT_SETTINGS };
  for (const row of sql.exec<{ key: string; value: string }>(
    "SELECT key, value FROM condense_settings",
  )) {
    if (isSettingName(row.key)) Object.assign(settings, { [row.key]: JSON.parse(row.value) });
  }
  // Frozen (the pinned messages' list too): every reader of the step shares it.
  Object.freeze(settings.pinned);
  reads.set(sql, Object.freeze(settings));
  queueMicrotask(() => reads.delete(sql));
  return settings;
}

/** Forgets the settings read in this step: a transaction that wrote them rolled back. */
export function forgetSettings(sql: SqlStorage): void {
  reads.delete(sql);
}

/** `settings` with `update` applied, as `writeSettings` would store them. */
export function mergeSettings(settings: SessionSettings, update: SettingsUpdate): SessionSettings {
  const merged: SessionSettings = { ...settings };
  for (const [name, value] of Object.entries(update)) {
    if (!isSettingName(name) || value === undefined) continue;
    Object.assign(merged, { [name]: value === null ? DEFAULT_SETTINGS[name] : value });
  }
  return merged;
}

/** The engine options the settings set (the window, pinned messages and strategy are the service's). */
export function settingsOptions(settings: SessionSettings): CompactOptions {
  return {
    ...(settings.threshold !== null ? { threshold: settings.threshold } : {}),
    ...(settings.reserveTokens !== null ? { reserveTokens: settings.reserveTokens } : {}),
    ...(settings.tailTokens !== null ? { tailTokens: settings.tailTokens } : {}),
    ...(settings.policy !== null ? { policy: settings.policy } : {}),
    ...(settings.floor !== null ? { floor: settings.floor } : {}),
    ...(settings.identifierPolicy !== null ? { identifierPolicy: settings.identifierPolicy } : {}),
    ...(settings.identifierInstructions !== null
      ? { identifierInstructions: settings.identifierInstructions }
      : {}),
  };
}

/** How to fix a setting the engine refused. */
const FIXES: Partial<Record<string, string>> = {
  identifierInstructions:
    'identifierPolicy "custom" needs identifierInstructions: send both in the same PATCH, or set identifierPolicy to strict or off',
  summarizerModel:
    "set summarizerModel to a model name the summarizer endpoint serves, or null for the deployment's SUMMARIZER_MODEL",
};

function refused(setting: string, error: InvalidOptionsError): ApiError {
  const fix = FIXES[setting] ?? `change \`${setting}\`, or send null to restore its default`;
  return new ApiError(
    400,
    "invalid_options",
    `setting \`${setting}\`: ${error.message}; ${fix}. Nothing was changed`,
    { setting, option: error.option },
  );
}

/**
 * Throws the 400 `invalid_options` that names the setting and its fix when the engine would refuse
 * what `settings` (the whole effective settings, for `model`) make it run with: its own option
 * checks (`resolveOptions`) and the summarizer they build.
 */
export function checkSettings(settings: SessionSettings, model: string, env: Env): void {
  try {
    summarizerFor(env, settings.summarizerModel);
  } catch (error) {
    if (InvalidOptionsError.isInstance(error)) throw refused("summarizerModel", error);
    throw error;
  }
  try {
    resolveOptions(model, {
      ...(settings.contextWindow !== null ? { contextWindow: settings.contextWindow } : {}),
      ...settingsOptions(settings),
    });
  } catch (error) {
    if (!InvalidOptionsError.isInstance(error)) throw error;
    // The options come from settings of the same names.
    throw refused(error.option, error);
  }
}

/** Applies `update`; run it inside the caller's transaction. */
export function writeSettings(sql: SqlStorage, update: SettingsUpdate): void {
  reads.delete(sql);
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
