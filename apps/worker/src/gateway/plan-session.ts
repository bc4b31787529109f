/**
 * @module gateway/plan-session
 * The plan of a request with `X-Condense-Session`: its history is matched
 * with the session (`session/gateway-turn`), its new messages appended, and
 * the session's context goes upstream in place of the history, the request's
 * other fields untouched and its cache markers placed on the context; the
 * answer is appended once complete. An overflow compacts the session and the
 * request is retried with its own history compacted, and fitted further when
 * the upstream's count of what it refused says it must be
 * (`gateway/overflow-count`); nothing smaller to send, the error goes back
 * with a header that says why. A history the session
 * will not take (another conversation under the same header, or one it cannot
 * append) goes as a stateless request, nothing stored. A session whose
 * setting `recall` is on gets the recall tool added, and its calls answered
 * by the gateway (`gateway/recall-rounds`).
 */

import type { ChatMessage } from "@condense/core";
import { ApiError } from "../api/errors";
import { canonicalMessages, renderMessages } from "../api/formats";
import { unwrap } from "../api/rpc-result";
import type { LogFields } from "../http/app-env";
import { logLine } from "../log/log-lines";
import { messageHashes } from "../messages/history-hash";
import type { GatewayOverflowResult, GatewayTurnResult } from "../session/gateway-turn";
import type { SessionCall } from "../session/session-record";
import { type SessionStub, sessionStub } from "../session/session-stub";
import { requestThread } from "../session/threads";
import { cacheMarkerPlacement } from "./cache-markers";
import { GATEWAY_HEADERS } from "./condense-headers";
import type { ForwardPlan } from "./forward-plan";
import { markNoFit, markPassedThrough, upstreamCount } from "./overflow-count";
import { fitStateless, statelessPlan } from "./plan-stateless";
import type { GatewayProtocol, ProtocolAnswer, RequestBody } from "./protocol";
import { RECALL_TOOL } from "./recall-rounds";
import { sessionRecallSource } from "./recall-source";
import { type MarkersFor, referenceMessages, renderReference, renderWhole } from "./render-context";
import { requestOverhead } from "./request-overhead";

/** A request with a session, its history read (canonical). */
export interface SessionRequest {
  env: Env;
  /** The request's log line. */
  log: LogFields;
  protocol: GatewayProtocol;
  body: RequestBody;
  /** The body as the client sent it. */
  text: string;
  canonical: ChatMessage[];
  key: SessionCall;
  contextWindow: number | undefined;
}

/**
 * Where the messages a turn appends probably start: after the last assistant message (the answer
 * stored last turn), or at it, should that answer's append not have landed yet. Sent from there, the
 * history's new messages need one call to the session object.
 */
function likelyNew(messages: readonly ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role === "assistant") return index;
  }
  return 0;
}

export async function sessionPlan(request: SessionRequest): Promise<ForwardPlan> {
  const { protocol, body, text, canonical, key, contextWindow } = request;
  const stub = sessionStub(request.env, key);
  const model = String(body.model);
  const hashes = await messageHashes(canonical);
  const thread = requestThread(canonical, body);
  const overheadTokens = requestOverhead(protocol, body);
  const turnFrom = async (from: number): Promise<GatewayTurnResult> =>
    unwrap(
      await stub.gatewayTurn(key, {
        hashes,
        from,
        messages: canonical.slice(from),
        ...thread,
        model,
        overheadTokens,
        ...(contextWindow !== undefined ? { contextWindow } : {}),
      }),
    );
  let turn = await turnFrom(likelyNew(canonical));
  if (turn.kind === "need") turn = await turnFrom(turn.from);
  const base = { [GATEWAY_HEADERS.session]: key.sessionId };
  if (turn.kind !== "context") {
    // Another conversation under the same header, or a history that breaks the tool-call rules even
    // as a generation of its own (or messages asked for twice): it is forwarded as it is, compacted
    // in place if it must be, and kept as a side request with its answer, out of the transcript.
    const reason = turn.kind === "refused" ? turn.reason : "busy";
    const [plan, kept] = await Promise.all([
      statelessPlan(protocol, body, text, canonical, {
        contextWindow,
        headers: { ...base, [GATEWAY_HEADERS.stateless]: reason },
      }),
      stub.gatewaySideRequest(key, { messages: canonical, reason, model }),
    ]);
    const side = unwrap(kept);
    plan.headers[GATEWAY_HEADERS.generation] = String(side.generation);
    plan.headers[GATEWAY_HEADERS.sideRequest] = String(side.id);
    return { ...plan, answered: (answer) => storeSideAnswer(stub, key, protocol, side.id, answer) };
  }
  const served = turn;
  request.log.tokensAfter = served.tokens;
  if (served.compactionTier !== null) request.log.tier = served.compactionTier;
  const headers: Record<string, string> = {
    ...base,
    [GATEWAY_HEADERS.generation]: String(served.generation),
    [GATEWAY_HEADERS.tokens]: String(served.tokens),
    [GATEWAY_HEADERS.compaction]:
      served.compactionTier === null ? "none" : String(served.compactionTier),
  };
  let sentTokens = served.tokens;
  const markersFor: MarkersFor = (context, stablePrefix) =>
    cacheMarkerPlacement({
      protocol,
      body,
      request: canonical,
      requestHashes: hashes,
      context,
      stablePrefix,
    });
  const context =
    "whole" in served.context
      ? renderWhole(served.context.whole, protocol.format, markersFor)
      : renderReference(served.context.byReference, canonical, protocol.format, markersFor);
  // Never for a request that declares a tool named recall itself: that one is the client's to answer.
  const recall =
    served.recall && !protocol.tools.declares(body, RECALL_TOOL)
      ? sessionRecallSource(stub, key)
      : undefined;
  const outgoing = (next: RequestBody): RequestBody =>
    recall === undefined ? next : protocol.tools.withRecallTool(next);
  if (recall !== undefined) headers[GATEWAY_HEADERS.recallRounds] = "0";
  return {
    ...(context === undefined && recall === undefined
      ? { body, text }
      : { body: outgoing(context === undefined ? body : protocol.withContext(body, context)) }),
    headers,
    ...(recall !== undefined ? { recall } : {}),
    async recover(error) {
      // The upstream's count of what it refused, against the gateway's (`gateway/overflow-count`).
      const count = upstreamCount(error, sentTokens + overheadTokens);
      const maxOutputTokens = protocol.maxOutputTokens(body);
      /** `messages` fitted statelessly into `window` (the gateway's count, overhead included). */
      const fitInto = (messages: ChatMessage[], window: number) =>
        fitStateless(messages, model, {
          contextWindow: window,
          ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
          overheadTokens,
          force: true,
        });
      let recovered: GatewayOverflowResult;
      try {
        recovered = unwrap<GatewayOverflowResult>(
          await stub.gatewayOverflow(key, {
            error: { status: error.status, message: error.text.slice(0, 100_000) },
            format: protocol.format,
            generation: served.generation,
            lastSeq: served.lastSeq,
          }),
        );
      } catch (refused) {
        // Not an overflow by the session's reading, the session is gone, or no context of it fits
        // the window the upstream stated: the error goes back as it was.
        if (refused instanceof ApiError) {
          if (refused.code === "context_over_window") markNoFit(headers, refused.message);
          return undefined;
        }
        throw refused;
      }
      if (recovered.compactionTier !== null) {
        headers[GATEWAY_HEADERS.compaction] = String(recovered.compactionTier);
      }
      // The retry carries this request's own history, compacted: never messages other requests
      // appended meanwhile (an answer its client abandoned), which are not this conversation's turn.
      if (recovered.kind === "moved-on") {
        const window = Math.min(recovered.contextWindow, count?.window ?? recovered.contextWindow);
        const fit = await fitInto(canonical, window);
        // Nothing smaller to send (what is never cut is over by itself): the same context would be
        // refused again, so the upstream's error goes back as it was.
        if (fit.tokens >= sentTokens) {
          markPassedThrough(headers, count, sentTokens, fit.tokens);
          return undefined;
        }
        sentTokens = fit.tokens;
        headers[GATEWAY_HEADERS.tokens] = String(fit.tokens);
        return outgoing(protocol.withContext(body, renderMessages(fit.messages, protocol.format)));
      }
      const reference = recovered.context.byReference;
      // The session's context is still over the window by the upstream's count: this request's is
      // fitted into that window (the session keeps its own, which fits by the gateway's count).
      const messages =
        count !== undefined && recovered.tokens + overheadTokens > count.window
          ? referenceMessages(reference, canonical)
          : undefined;
      if (messages !== undefined && count !== undefined) {
        const fit = await fitInto(messages, count.window);
        const smallest = Math.min(fit.tokens, recovered.tokens);
        if (smallest >= sentTokens) {
          markPassedThrough(headers, count, sentTokens, smallest);
          return undefined;
        }
        if (fit.tokens < recovered.tokens) {
          sentTokens = fit.tokens;
          headers[GATEWAY_HEADERS.tokens] = String(fit.tokens);
          const markers = markersFor(fit.messages, 0);
          return outgoing(
            protocol.withContext(body, renderMessages(fit.messages, protocol.format, { markers })),
          );
        }
      }
      if (recovered.tokens >= sentTokens) {
        markPassedThrough(headers, count, sentTokens, recovered.tokens);
        return undefined;
      }
      sentTokens = recovered.tokens;
      headers[GATEWAY_HEADERS.tokens] = String(recovered.tokens);
      const retried = renderReference(reference, canonical, protocol.format, markersFor);
      // Nothing compacted: the same request would be refused the same way.
      if (retried === undefined) {
        markPassedThrough(headers, count, sentTokens, recovered.tokens);
        return undefined;
      }
      return outgoing(protocol.withContext(body, retried));
    },
    answered: (answer) =>
      storeAnswer(stub, key, protocol, answer, {
        generation: served.generation,
        afterSeq: served.lastSeq,
        model,
      }),
  };
}

/** Keeps the complete answer with side request `id`; never rejects (a failure is logged). */
async function storeSideAnswer(
  stub: SessionStub,
  key: SessionCall,
  protocol: GatewayProtocol,
  id: number,
  answer: ProtocolAnswer,
): Promise<void> {
  try {
    const messages = canonicalMessages(answer.messages, protocol.format);
    const result = await stub.gatewaySideAnswer(key, { id, messages });
    if (result.ok && !result.value.kept) {
      logLine({ type: "side_answer_not_kept", requestId: key.requestId, sideRequest: id });
    }
  } catch (error) {
    logLine({
      type: "side_answer_not_kept",
      level: "warn",
      requestId: key.requestId,
      sideRequest: id,
      error: error instanceof ApiError ? error.code : error instanceof Error ? error.name : "error",
    });
  }
}

/** Appends the complete answer to the session; never rejects (a failure is logged). */
async function storeAnswer(
  stub: SessionStub,
  key: SessionCall,
  protocol: GatewayProtocol,
  answer: ProtocolAnswer,
  turn: { generation: number; afterSeq: number; model: string },
): Promise<void> {
  try {
    const messages = canonicalMessages(answer.messages, protocol.format);
    const result = await stub.gatewayAnswer(key, {
      ...turn,
      messages,
      hashes: await messageHashes(messages),
      ...(answer.usage !== undefined ? { usage: answer.usage } : {}),
    });
    if (result.ok && !result.value.appended) {
      logLine({
        type: "gateway_answer_not_stored",
        requestId: key.requestId,
        reason: result.value.reason,
      });
    }
  } catch (error) {
    // An answer the engine cannot read (an item type it does not know) is not stored; the next
    // turn's history carries it, and starts a new generation if it must.
    logLine({
      type: "gateway_answer_not_stored",
      level: "warn",
      requestId: key.requestId,
      error: error instanceof ApiError ? error.code : error instanceof Error ? error.name : "error",
    });
  }
}
