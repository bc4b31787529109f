/**
 * @module gateway/plans/render-context
 * The context a session serves a gateway request, in the request's protocol:
 * given whole, or by reference to the request's own history (the messages
 * the session holds of it are not shipped back), with the request's cache
 * markers placed on it (`gateway/plans/cache-markers`) and, on OpenAI's models
 * that take them, the explicit breakpoints (`gateway/plans/openai-breakpoints`),
 * both from where the context's parts sit (`ContextLayout`), never from its text.
 */

import {
  type ChatMessage,
  type MarkerPlacement,
  type MessageFormat,
  sendableMessages,
} from "@condense/core";
import { renderMessages } from "../../api/formats";
import {
  type ContextData,
  stableCount,
  summaryIndex,
  withPinned,
} from "../../session/context/context-data";
import { renderContext } from "../../session/context/context-formats";
import type { GatewayContextByReference } from "../../session/turns/gateway-context";
import type { RequestHistory } from "../protocols/protocol";

/** Where a served context's parts sit, by index in its canonical messages. */
export interface ContextLayout {
  /** How many leading messages are the compacted view with system and pinned messages (0: none). */
  stablePrefix: number;
  /** The message holding the view's summary (within the stable prefix), or -1. */
  summary: number;
}

/** The layout of a context nothing was compacted in (a stateless fit's). */
export const NO_LAYOUT: ContextLayout = { stablePrefix: 0, summary: -1 };

/** How a request's markers go on a context it is served. */
export interface Marking {
  /** The request's cache markers, placed as the context is rendered (`cache-markers`). */
  markers(context: ChatMessage[], layout: ContextLayout): MarkerPlacement | undefined;
  /** The rendered messages with OpenAI's explicit breakpoints placed (`openai-breakpoints`). */
  breakpoints(rendered: unknown[], context: ChatMessage[], layout: ContextLayout): unknown[];
}

/** No markers, no breakpoints (a count, which neither reads nor writes the provider's cache). */
export const NO_MARKING: Marking = {
  markers: () => undefined,
  breakpoints: (rendered) => rendered,
};

/** `context` rendered in `format` with the request's markers and breakpoints. */
export function renderMarked(
  context: ChatMessage[],
  format: MessageFormat,
  marking: Marking,
  layout: ContextLayout,
): RequestHistory {
  const rendered = renderMessages(context, format, { markers: marking.markers(context, layout) });
  return { ...rendered, messages: marking.breakpoints(rendered.messages, context, layout) };
}

/** How a gateway client asks for the Responses format, which alone carries OpenAI compaction items. */
const ASK_FOR_RESPONSES = "use /responses";

/** A context given whole, rendered. */
export function renderWhole(
  data: ContextData,
  format: MessageFormat,
  marking: Marking,
): RequestHistory {
  if (data.responsesItems !== undefined) {
    return renderContext(data, format, { askFor: ASK_FOR_RESPONSES });
  }
  const { stablePrefix } = data;
  const summary = summaryIndex(data.messages, data.summary, stablePrefix);
  return renderMarked(data.messages, format, marking, { stablePrefix, summary });
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
  marking: Marking,
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
  const summary = reference.summary === undefined ? undefined : reference.view[reference.summary];
  return renderMarked(context, format, marking, {
    stablePrefix,
    summary: summary === undefined ? -1 : context.slice(0, stablePrefix).indexOf(summary),
  });
}
