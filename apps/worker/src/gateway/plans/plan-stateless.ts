/**
 * @module gateway/plans/plan-stateless
 * A gateway request without a session: nothing is stored, and a history that
 * does not fit (threshold and reserve as for sessions, the model's window from
 * the table or `X-Condense-Context-Window` less the request's fixed overhead,
 * the request's output budget in the reserve) is compacted in place by the
 * deterministic tiers before it is forwarded. An overflow the upstream still
 * reports compacts again, against the window it stated, scaled by its count of
 * what it refused (`gateway/plans/overflow-count`). The messages after the last
 * assistant turn are never compacted (the engine's rule): when they alone do
 * not fit the window, their tool outputs are cut to head and tail; when
 * nothing smaller can be sent, the upstream's overflow error goes back to the
 * client as it came, with a header that says why.
 */

import {
  type ChatMessage,
  CondenseError,
  compact,
  contextWindowFor,
  countMessageTokens,
} from "@condense/core";
import { renderMessages } from "../../api/formats";
import { messageHashes } from "../../messages/history-hash";
import { knownTokenCounts } from "../../messages/token-counts";
import { GATEWAY_HEADERS } from "../protocols/condense-headers";
import type { GatewayProtocol, RequestBody } from "../protocols/protocol";
import { cacheMarkerPlacement, carriesCacheMarkers } from "./cache-markers";
import { type ForwardPlan, nothingToStore } from "./forward-plan";
import { markPassedThrough, upstreamCount } from "./overflow-count";
import { NO_LAYOUT } from "./render-context";
import { requestOverhead } from "./request-overhead";

export interface StatelessFit {
  messages: ChatMessage[];
  /** Tokens of `messages` (the engine's count). */
  tokens: number;
  /** The tier of the compaction that ran, or null. */
  tier: number | null;
  /** The whole window (the request's overhead included). */
  contextWindow: number;
}

export interface StatelessOptions {
  contextWindow?: number;
  maxOutputTokens?: number;
  /**
   * Engine tokens the request sends beside its messages that the provider counts with them (its tool
   * definitions: `gateway/plans/request-overhead`): the messages fit in the window less these.
   */
  overheadTokens?: number;
  /** Compact even below the threshold (after an overflow). */
  force?: boolean;
}

/** `messages` as they are when they fit, else compacted by the deterministic summarizer. */
export async function fitStateless(
  messages: ChatMessage[],
  model: string,
  options: StatelessOptions = {},
): Promise<StatelessFit> {
  const contextWindow = options.contextWindow ?? contextWindowFor(model);
  // At least one token: an overhead as large as the window leaves the messages compacted as far as
  // they go, and the upstream says whether the request fits.
  const room = Math.max(1, contextWindow - (options.overheadTokens ?? 0));
  const known = knownTokenCounts(messages, model);
  try {
    const result = await compact(
      { model, messages, tokenCounts: known.counts },
      {
        contextWindow: room,
        // The engine counts it for at most a quarter of the window (an allowance, not a use).
        ...(options.maxOutputTokens !== undefined
          ? { maxOutputTokens: options.maxOutputTokens }
          : {}),
        ...(options.force === true ? { force: true } : {}),
      },
    );
    known.record();
    return {
      messages: result.messages,
      tokens: result.finalTokens,
      tier: result.compacted ? result.tier : null,
      contextWindow,
    };
  } catch (error) {
    // Options the engine refuses (a window too small for any reserve): the history goes as it is,
    // and the upstream says whether it fits.
    if (!CondenseError.isInstance(error)) throw error;
    return {
      messages,
      tokens: countMessageTokens(messages, model),
      tier: null,
      contextWindow,
    };
  }
}

/**
 * The plan of a request without a session (or one its session would not take): the history as it
 * was sent when it fits, else compacted in place with the request's cache markers placed on it;
 * after an overflow, compacted again against the window the upstream stated (or a fifth smaller).
 */
export async function statelessPlan(
  protocol: GatewayProtocol,
  body: RequestBody,
  text: string,
  canonical: ChatMessage[],
  options: { contextWindow: number | undefined; headers: Record<string, string> },
): Promise<ForwardPlan> {
  const model = String(body.model);
  const maxOutputTokens = protocol.maxOutputTokens(body);
  const overheadTokens = requestOverhead(protocol, body);
  const fitOptions = {
    ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    overheadTokens,
  };
  let fit = await fitStateless(canonical, model, fitOptions);
  const requestHashes = carriesCacheMarkers(protocol, body) ? await messageHashes(canonical) : [];
  const headers = {
    ...options.headers,
    [GATEWAY_HEADERS.tokens]: String(fit.tokens),
    [GATEWAY_HEADERS.compaction]: fit.tier === null ? "none" : String(fit.tier),
  };
  // A history that fits goes as it was sent; only a compacted one is rendered again, with the
  // request's cache markers placed on it.
  const bodyFor = (messages: ChatMessage[]) => {
    const markers = cacheMarkerPlacement({
      protocol,
      body,
      request: canonical,
      requestHashes,
      context: messages,
      layout: NO_LAYOUT,
    });
    return protocol.withContext(body, renderMessages(messages, protocol.format, { markers }));
  };
  return {
    ...(fit.tier === null ? { body, text } : { body: bodyFor(fit.messages) }),
    headers,
    async recover(error) {
      // The window the upstream stated, scaled into the gateway's count by the upstream's count of
      // what it refused (`gateway/plans/overflow-count`); when it states none, a fifth less than what it
      // refused (its messages; the overhead beside them stays as it is).
      const count = upstreamCount(error, fit.tokens + overheadTokens);
      const limit = count?.window ?? Math.floor(fit.tokens * 0.8) + overheadTokens;
      const contextWindow = Math.min(fit.contextWindow, limit);
      const next = await fitStateless(canonical, model, {
        ...fitOptions,
        contextWindow,
        force: true,
      });
      if (next.tokens >= fit.tokens) {
        markPassedThrough(headers, count, fit.tokens, next.tokens);
        return undefined;
      }
      fit = next;
      headers[GATEWAY_HEADERS.tokens] = String(fit.tokens);
      headers[GATEWAY_HEADERS.compaction] = String(fit.tier ?? "none");
      return bodyFor(fit.messages);
    },
    answered: nothingToStore,
  };
}
