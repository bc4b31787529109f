/**
 * @module gateway/plans/render-context
 * The context a session serves a gateway request, in the request's protocol:
 * given whole, or by reference to the request's own history (the messages
 * the session holds of it are not shipped back), with the request's cache
 * markers placed on it (`gateway/plans/cache-markers`).
 */

import {
  type ChatMessage,
  type MarkerPlacement,
  type MessageFormat,
  sendableMessages,
} from "@condense/core";
import { renderMessages } from "../../api/formats";
import { type ContextData, stableCount, withPinned } from "../../session/context/context-data";
import { renderContext } from "../../session/context/context-formats";
import type { GatewayContextByReference } from "../../session/turns/gateway-context";
import type { RequestHistory } from "../protocols/protocol";

/** Where a request's cache markers go on a context (`gateway/plans/cache-markers`). */
export type MarkersFor = (
  context: ChatMessage[],
  stablePrefix: number,
) => MarkerPlacement | undefined;

/** How a gateway client asks for the Responses format, which alone carries OpenAI compaction items. */
const ASK_FOR_RESPONSES = "use /responses";

/** A context given whole, rendered. */
export function renderWhole(
  data: ContextData,
  format: MessageFormat,
  markersFor: MarkersFor,
): RequestHistory {
  const markers =
    data.responsesItems === undefined ? markersFor(data.messages, data.stablePrefix) : undefined;
  return renderContext(data, format, { markers, askFor: ASK_FOR_RESPONSES });
}

/** The request's history from where the view ends, with the messages the session fitted in place. */
function historyOf(reference: GatewayContextByReference, canonical: ChatMessage[]): ChatMessage[] {
  const history = canonical.slice(reference.historyFrom);
  // Outputs the session fitted so the context fits its window (`session/context/fit-served`).
  for (const { index, message } of reference.fitted ?? []) {
    if (index < history.length) history[index] = message;
  }
  return history;
}

/**
 * The canonical messages of a context given by reference (as `renderReference` sends them), or
 * undefined for a view of OpenAI compaction items, which is sent as it is.
 */
export function referenceMessages(
  reference: GatewayContextByReference,
  canonical: ChatMessage[],
): ChatMessage[] | undefined {
  if (reference.openaiItems !== undefined) return undefined;
  const history = historyOf(reference, canonical);
  return sendableMessages(withPinned([...reference.view, ...history], reference.pinned)).messages;
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
  const history = historyOf(reference, canonical);
  if (reference.openaiItems !== undefined) {
    const rest = sendableMessages([...reference.pinned, ...history]).messages;
    const items = { messages: rest, responsesItems: reference.openaiItems, rest };
    return renderContext(items, format, { askFor: ASK_FOR_RESPONSES });
  }
  const sent = sendableMessages(withPinned([...reference.view, ...history], reference.pinned));
  const unchanged =
    reference.view.length === 0 &&
    reference.pinned.length === 0 &&
    reference.historyFrom === 0 &&
    reference.fitted === undefined &&
    !sent.changed;
  if (unchanged) return undefined;
  const context = sent.messages;
  // The view's and the pinned messages lead the context until the next compaction
  // (`sendableMessages` passes unchanged messages through as the same objects).
  const stable = new Set<ChatMessage>([...reference.view, ...reference.pinned]);
  const stablePrefix = reference.view.length > 0 ? stableCount(context, stable) : 0;
  return renderMessages(context, format, { markers: markersFor(context, stablePrefix) });
}
