/**
 * @module gateway/plans/plan-session
 * The plan of a request with `X-Condense-Session`: its history is matched
 * with the session (`session/turns/gateway-turn`), its new messages appended, and
 * the session's context goes upstream in place of the history, the request's
 * other fields untouched and its cache markers placed on the context; the
 * answer is appended once complete. An overflow compacts the session and the
 * request is retried smaller (`gateway/plans/session-recovery`). A history the session
 * will not take (another conversation under the same header, or one it cannot
 * append) goes as a stateless request, nothing stored. A session whose
 * setting `recall` is on gets the recall tool added, and its calls answered
 * by the gateway (`gateway/recall/recall-rounds`); one whose setting
 * `cacheDiagnostics` is on opts its Anthropic requests in to cache diagnostics
 * (`plans/cache-diagnostics`). On OpenAI's models that take explicit cache
 * breakpoints, the context keeps the client's and, once compacted, gets the
 * gateway's at the end of its head and on its summary (`plans/openai-breakpoints`).
 */

import type { ChatMessage } from "@condense/core";
import { ApiError } from "../../api/errors";
import { canonicalMessages } from "../../api/formats";
import { unwrap } from "../../api/rpc-result";
import type { LogFields } from "../../http/app-env";
import { logLine } from "../../log/log-lines";
import { messageHashes } from "../../messages/history-hash";
import { type SessionStub, sessionStub } from "../../session/session-stub";
import type { SessionCall } from "../../session/store/session-record";
import type { GatewayTurnResult } from "../../session/turns/gateway-turn";
import { packHashes } from "../../session/turns/packed-hashes";
import { requestThread } from "../../session/turns/threads";
import { GATEWAY_HEADERS } from "../protocols/condense-headers";
import type { GatewayProtocol, ProtocolAnswer, RequestBody } from "../protocols/protocol";
import { RECALL_TOOL } from "../recall/recall-rounds";
import { sessionRecallSource } from "../recall/recall-source";
import { diagnosticsOptIn } from "./cache-diagnostics";
import { cacheMarkerPlacement } from "./cache-markers";
import { cachedSummaryChannel } from "./cached-summary";
import type { ForwardPlan, SentRequest } from "./forward-plan";
import { takesOpenAIBreakpoints, withOpenAIBreakpoints } from "./openai-breakpoints";
import { statelessPlan } from "./plan-stateless";
import { sessionCacheKey, takesSessionCacheKey } from "./prompt-cache-key";
import { type Marking, renderReference, renderWhole } from "./render-context";
import { requestOverhead } from "./request-overhead";
import { SessionRecovery } from "./session-recovery";

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
  // One string across the RPC, not one a message (`packed-hashes`).
  const packed = packHashes(hashes);
  const turnFrom = async (from: number): Promise<GatewayTurnResult> =>
    unwrap(
      await stub.gatewayTurn(key, {
        hashes: packed,
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
  const histories = { protocol, body, request: canonical, requestHashes: hashes };
  const breakpoints = takesOpenAIBreakpoints(protocol, model);
  const marking: Marking = {
    markers: (context, layout) => cacheMarkerPlacement({ ...histories, context, layout }),
    breakpoints: (rendered, context, layout) =>
      breakpoints ? withOpenAIBreakpoints(rendered, { ...histories, context, layout }) : rendered,
  };
  const context =
    "whole" in served.context
      ? renderWhole(served.context.whole, protocol.format, marking)
      : renderReference(served.context.byReference, canonical, protocol.format, marking);
  // Never for a request that declares a tool named recall itself: that one is the client's to answer.
  const recall =
    served.recall && !protocol.tools.declares(body, RECALL_TOOL)
      ? sessionRecallSource(stub, key)
      : undefined;
  // OpenAI's cache routing key, from the session when the client sent none (`prompt-cache-key`).
  const cacheKey = takesSessionCacheKey(protocol, body, model)
    ? await sessionCacheKey(key)
    : undefined;
  // Anthropic's cache diagnostics, asked for with the last opted-in answer's id (`cache-diagnostics`).
  const diagnostics = diagnosticsOptIn(protocol, body, served.cacheDiagnostics);
  const optedIn = diagnostics !== undefined || body.diagnostics != null;
  const outgoing = (next: RequestBody): RequestBody => {
    const keyed = cacheKey === undefined ? next : { ...next, prompt_cache_key: cacheKey };
    const asked = diagnostics === undefined ? keyed : { ...keyed, diagnostics };
    return recall === undefined ? asked : protocol.tools.withRecallTool(asked);
  };
  if (recall !== undefined) headers[GATEWAY_HEADERS.recallRounds] = "0";
  const recovery = new SessionRecovery({
    stub,
    key,
    protocol,
    body,
    canonical,
    model,
    overheadTokens,
    served,
    headers,
    marking,
    outgoing,
  });
  return {
    ...(context === undefined && recall === undefined && diagnostics === undefined
      ? { body, text }
      : { body: outgoing(context === undefined ? body : protocol.withContext(body, context)) }),
    headers,
    ...(recall !== undefined ? { recall } : {}),
    recover: (error) => recovery.recover(error),
    answered: async (answer, sent) => {
      await storeAnswer(stub, key, protocol, answer, {
        generation: served.generation,
        afterSeq: served.lastSeq,
        model,
        ...(optedIn && answer.id !== undefined ? { answerId: answer.id } : {}),
      });
      if (served.cachedSummaries && sent !== undefined) {
        await summarizeThroughCache(stub, key, protocol, sent);
      }
    },
  };
}

/**
 * With the setting `cachedSummaries` on: a compaction due after this turn runs now, its summary
 * written by the turn's own upstream from the request just sent (`plans/cached-summary`); never
 * rejects (a failure is logged, and the compaction stays pending for the alarm).
 */
async function summarizeThroughCache(
  stub: SessionStub,
  key: SessionCall,
  protocol: GatewayProtocol,
  sent: SentRequest,
): Promise<void> {
  const channel = cachedSummaryChannel(protocol, sent);
  if (channel === undefined) return;
  try {
    const result = await stub.gatewayCachedSummary(key, channel);
    if (!result.ok || result.value.status === "failed") {
      logLine({ type: "cached_summary_failed", level: "warn", requestId: key.requestId });
    }
  } catch (error) {
    logLine({
      type: "cached_summary_failed",
      level: "warn",
      requestId: key.requestId,
      error: error instanceof Error ? error.name : "error",
    });
  }
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
  turn: { generation: number; afterSeq: number; model: string; answerId?: string },
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
