/**
 * @module gateway/plans/plan-request
 * Which plan a gateway request gets. A request that keeps its history on the
 * provider's side (`previous_response_id`, `conversation`) is forwarded
 * unchanged (X-Condense-Passthrough: server-state), and so is a history the
 * engine cannot read (malformed: items and blocks of types it does not know it
 * keeps opaque), for the provider to judge (X-Condense-Passthrough:
 * unreadable). Any other goes with its session (`gateway/plans/plan-session`) or,
 * without `X-Condense-Session`, compacted in place when it does not fit
 * (`gateway/plans/plan-stateless`).
 */

import type { ChatMessage } from "@condense/core";
import { ApiError } from "../../api/errors";
import { canonicalMessages } from "../../api/formats";
import { unwrap } from "../../api/rpc-result";
import type { LogFields } from "../../http/app-env";
import { sessionStub } from "../../session/session-stub";
import { type CondenseRequest, GATEWAY_HEADERS } from "../protocols/condense-headers";
import type { GatewayProtocol, RequestBody, RequestHistory } from "../protocols/protocol";
import { type ForwardPlan, unchangedPlan } from "./forward-plan";
import { sessionPlan } from "./plan-session";
import { statelessPlan } from "./plan-stateless";
import { sinceProviderCompaction } from "./provider-compaction";

/** A gateway request, validated and authenticated. */
export interface GatewayRequest extends CondenseRequest {
  env: Env;
  /** The request's log line. */
  log: LogFields;
  protocol: GatewayProtocol;
  body: RequestBody;
  /** The body as the client sent it. */
  text: string;
  /** The authenticated user. */
  userId: string;
  requestId: string;
}

/**
 * The request's history, canonical; undefined when the engine cannot read it (its own validation
 * never stands between an agent and its model). A message over the size limit is still refused.
 */
export function readableHistory(
  protocol: GatewayProtocol,
  history: RequestHistory,
  sourceLength: number,
): ChatMessage[] | undefined {
  try {
    return canonicalMessages(
      history.messages,
      protocol.format,
      history.system,
      "messages",
      sourceLength,
    );
  } catch (error) {
    if (error instanceof ApiError && error.code === "invalid_messages") return undefined;
    throw error;
  }
}

/**
 * The headers of a request with a session forwarded unchanged: the session, and its generation
 * (which the request leaves as it is), so that every response under a session names both.
 */
async function untouchedSession(request: GatewayRequest): Promise<Record<string, string>> {
  const { sessionId } = request;
  if (sessionId === undefined) return {};
  request.log.session = sessionId;
  const key = { userId: request.userId, sessionId, requestId: request.requestId };
  const { generation } = unwrap(await sessionStub(request.env, key).gatewayGeneration(key));
  return {
    [GATEWAY_HEADERS.session]: sessionId,
    [GATEWAY_HEADERS.generation]: String(generation),
  };
}

export async function planRequest(request: GatewayRequest): Promise<ForwardPlan> {
  const { protocol, body, text, sessionId, contextWindow } = request;
  const history = protocol.history(body);
  if (history === undefined) {
    return unchangedPlan(body, text, {
      ...(await untouchedSession(request)),
      [GATEWAY_HEADERS.passthrough]: "server-state",
    });
  }
  const read = readableHistory(protocol, history, text.length);
  if (read === undefined) {
    // The engine cannot read this history, but the provider may: it judges it, nothing is stored.
    return unchangedPlan(body, text, {
      ...(await untouchedSession(request)),
      [GATEWAY_HEADERS.passthrough]: "unreadable",
    });
  }
  // What the provider no longer reads (before its own compaction) is neither counted nor compacted.
  const canonical = sinceProviderCompaction(read);
  if (sessionId === undefined) {
    return statelessPlan(protocol, body, text, canonical, { contextWindow, headers: {} });
  }
  request.log.session = sessionId;
  return sessionPlan({
    env: request.env,
    log: request.log,
    protocol,
    body,
    text,
    canonical,
    key: { userId: request.userId, sessionId, requestId: request.requestId },
    contextWindow,
  });
}
