/**
 * @module session/context/context-formats
 * The formats a context is rendered in: a context rendered as the Worker sends
 * it, the session's default format, and the checks that refuse a format that
 * cannot carry the context (OpenAI compaction items, parts a provider does not
 * take) before anything is recorded.
 */

import type { ChatMessage, MarkerPlacement, MessageFormat } from "@condense/core";
import { ApiError } from "../../api/errors";
import { checkPartsAvailable, renderMessages } from "../../api/formats";
import type { SessionRow } from "../store/session-record";
import type { SessionScope } from "../store/session-scope";
import { readSettings, type SessionSettings } from "../store/settings";
import { readViewState } from "../store/view-state";
import { readSnapshot } from "./snapshot";

/**
 * The 409 for a context of OpenAI compaction items asked for in a format that cannot carry them;
 * `askFor` says how the caller asks for the Responses format where it is.
 */
export function formatNotAvailable(askFor = "ask for format=responses"): ApiError {
  return new ApiError(
    409,
    "format_not_available",
    `this session's context holds OpenAI compaction items (strategy: openai), which only the Responses format can carry; ${askFor} or set the session's strategy to local`,
  );
}

/** How a context is rendered: `renderMessages`'s options, and how to ask for the Responses format. */
export interface RenderContextOptions {
  providerData?: boolean;
  markers?: MarkerPlacement | undefined;
  askFor?: string;
}

/**
 * The messages of a context in `format`, as the Worker sends them (`GET /context`, the gateway): a
 * view of OpenAI compaction items as they are, then the messages after them (`rest`), which only the
 * Responses format carries; else its messages rendered with `options`.
 */
export function renderContext(
  context: { messages: ChatMessage[]; responsesItems?: unknown[]; rest?: ChatMessage[] },
  format: MessageFormat,
  { askFor, ...options }: RenderContextOptions = {},
): { messages: unknown[]; system?: unknown } {
  if (context.responsesItems === undefined)
    return renderMessages(context.messages, format, options);
  if (format !== "responses") throw formatNotAvailable(askFor);
  const rest = renderMessages(context.rest ?? [], "responses").messages;
  return { messages: [...context.responsesItems, ...rest] };
}

/**
 * Refuses `format` up front when the committed view holds OpenAI items it cannot carry, so that a
 * refused request runs no compaction and records nothing.
 */
export function checkFormatAvailable(sql: SqlStorage, format: MessageFormat | undefined): void {
  if (format !== undefined && format !== "responses" && readViewState(sql)?.strategy === "openai") {
    throw formatNotAvailable();
  }
}

/** The format a context is served in when the request names none. */
export function defaultFormatOf(settings: SessionSettings): MessageFormat {
  return settings.strategy === "openai" ? "responses" : "openai";
}

/**
 * Refuses `format` (the session's default when undefined) when the context's messages hold parts
 * it cannot carry (audio for anthropic and responses, files other than PDF, text and images for
 * anthropic). Run before anything is recorded, so that a refused request changes nothing.
 */
export function checkContextParts(
  settings: SessionSettings,
  messages: readonly ChatMessage[],
  format: MessageFormat | undefined,
): void {
  const resolved = format ?? defaultFormatOf(settings);
  if (resolved !== "openai") checkPartsAvailable([...settings.pinned, ...messages], resolved);
}

/** {@link checkContextParts} on the committed context, before a compaction changes it. */
export function checkPartsAvailableNow(
  scope: SessionScope,
  session: SessionRow,
  format: MessageFormat | undefined,
): void {
  const { sql } = scope;
  checkContextParts(readSettings(sql), readSnapshot(scope, session).messages, format);
}
