/**
 * @module gateway/render-context
 * The context a session serves a gateway request, in the request's protocol:
 * given whole, or by reference to the request's own history (the messages
 * the session holds of it are not shipped back), with the request's cache
 * markers placed on it (`gateway/cache-markers`).
 */

import {
  type ChatMessage,
  type MarkerPlacement,
  type MessageFormat,
  sendableMessages,
} from "@condense/core";
import { ApiError } from "../api/errors";
import { renderMessages } from "../api/formats";
import { type ContextData, withPinned } from "../session/context-view";
import type { GatewayContextByReference } from "../session/gateway-context";
import type { RequestHistory } from "./protocol";

/** Where a request's cache markers go on a context (`gateway/cache-markers`). */
export type MarkersFor = (
  context: ChatMessage[],
  stablePrefix: number,
) => MarkerPlacement | undefined;

function itemsOnlyInResponses(): ApiError {
  return new ApiError(
    409,
    "format_not_available",
    "this session's context holds OpenAI compaction items (strategy: openai), which only the Responses API can carry; use /responses, or set the session's strategy to local",
  );
}

/** Renders canonical context messages (or a view of OpenAI items) in the protocol's format. */
export function renderContext(
  data: ContextData,
  format: MessageFormat,
  markersFor: MarkersFor,
): RequestHistory {
  if (data.responsesItems === undefined)
    return renderMessages(data.messages, format, {
      markers: markersFor(data.messages, data.stablePrefix),
    });
  if (format !== "responses") throw itemsOnlyInResponses();
  return {
    messages: [...data.responsesItems, ...renderMessages(data.rest ?? [], "responses").messages],
  };
}

/**
 * A context given by reference to the request's history, rendered; undefined when it is the
 * request's history itself (nothing compacted, pinned, left out or placed), which then goes upstream
 * as it was sent. It is made sendable as `/context` makes the session's (core `sendableMessages`):
 * empty turns left out, interrupted tool calls answered, late results placed with their calls.
 */
export function renderReference(
  reference: GatewayContextByReference,
  canonical: ChatMessage[],
  format: MessageFormat,
  markersFor: MarkersFor,
): RequestHistory | undefined {
  const history = canonical.slice(reference.historyFrom);
  if (reference.openaiItems !== undefined) {
    if (format !== "responses") throw itemsOnlyInResponses();
    const rest = sendableMessages([...reference.pinned, ...history]).messages;
    return { messages: [...reference.openaiItems, ...renderMessages(rest, "responses").messages] };
  }
  const sent = sendableMessages(withPinned([...reference.view, ...history], reference.pinned));
  const unchanged =
    reference.view.length === 0 &&
    reference.pinned.length === 0 &&
    reference.historyFrom === 0 &&
    !sent.changed;
  if (unchanged) return undefined;
  const context = sent.messages;
  // The view's and the pinned messages lead the context until the next compaction
  // (`sendableMessages` passes unchanged messages through as the same objects).
  const stable = new Set<ChatMessage>([...reference.view, ...reference.pinned]);
  const firstChanging = context.findIndex((message) => !stable.has(message));
  const stablePrefix =
    reference.view.length > 0 ? (firstChanging === -1 ? context.length : firstChanging) : 0;
  return renderMessages(context, format, { markers: markersFor(context, stablePrefix) });
}
