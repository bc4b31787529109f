/**
 * @module session/store/settings-patch
 * The body of `PATCH /v1/sessions/{id}` as the change the session's object
 * applies (`settings-update`), converted in the Worker before the object is
 * reached: a context window as a number, pinned messages canonical and never
 * tool traffic or empty, and `null` as the default each setting restores.
 */

import { type ChatMessage, carriesNothing, parseContextWindow } from "@condense/core";
import { invalidRequest } from "../../api/errors";
import { canonicalMessages, rethrowEngineError } from "../../api/formats";
import type { SettingsPatchBody } from "../../api/schemas";
import { DEFAULT_SETTINGS, type SettingsUpdate } from "./settings";

/** The change `body` asks for; left-out (undefined) fields keep their value; `webhookSecret` as it is. */
export function settingsUpdate(body: SettingsPatchBody): SettingsUpdate {
  // Settings stored as sent; the others are converted first.
  const {
    contextWindow,
    pinned,
    strategy,
    recall,
    cachedSummaries,
    cacheDiagnostics,
    memory,
    memoryTokens,
    ...plain
  } = body;
  const update: SettingsUpdate = { ...plain };
  if (strategy !== undefined) update.strategy = strategy ?? "local";
  // null restores the default (stored settings of these types are never null).
  if (recall !== undefined) update.recall = recall ?? DEFAULT_SETTINGS.recall;
  if (cachedSummaries !== undefined) {
    update.cachedSummaries = cachedSummaries ?? DEFAULT_SETTINGS.cachedSummaries;
  }
  if (cacheDiagnostics !== undefined) {
    update.cacheDiagnostics = cacheDiagnostics ?? DEFAULT_SETTINGS.cacheDiagnostics;
  }
  if (memory !== undefined) update.memory = memory ?? DEFAULT_SETTINGS.memory;
  if (memoryTokens !== undefined) {
    update.memoryTokens = memoryTokens ?? DEFAULT_SETTINGS.memoryTokens;
  }
  if (contextWindow !== undefined) {
    try {
      update.contextWindow = contextWindow === null ? null : parseContextWindow(contextWindow);
    } catch (error) {
      rethrowEngineError(error);
    }
  }
  if (pinned !== undefined) {
    update.pinned = pinned === null ? [] : pinnedMessages(pinned);
  }
  return update;
}

const PINNED_ROLES = new Set(["system", "developer", "user", "assistant"]);

/**
 * Pinned messages: canonical, never tool traffic (they are re-inserted out of their original
 * place), and never empty.
 */
function pinnedMessages(messages: readonly unknown[]): ChatMessage[] {
  const canonical = canonicalMessages(messages, "openai", undefined, "pinned");
  canonical.forEach((message, index) => {
    if (!PINNED_ROLES.has(message.role) || (message.tool_calls?.length ?? 0) > 0) {
      throw invalidRequest(
        "body",
        `pinned[${index}]`,
        `invalid request body: \`pinned[${index}]\` must be a system, developer, user or assistant message without tool calls (tool traffic cannot be pinned)`,
      );
    }
    // Served as an empty turn or an empty block of Anthropic's `system`, which providers refuse.
    if (carriesNothing(message)) {
      throw invalidRequest(
        "body",
        `pinned[${index}]`,
        `invalid request body: \`pinned[${index}]\` carries nothing (no text, image or file); give it text or leave it out`,
      );
    }
  });
  return canonical;
}
