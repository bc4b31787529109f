/**
 * @module gateway/preview
 * The request the gateway would send upstream for a history, without sending
 * it or storing anything: what `count_tokens` counts and what
 * `/responses/compact` compacts when the upstream has no endpoint of its own
 * (`routes/gateway`). With a session whose current generation the history
 * extends, it is the session's served context with the request's new messages
 * after it (the session's read-only `gatewayPreview`); otherwise (no session,
 * one not created yet, or a history a turn would start a generation with or
 * keep as a side request) the history fitted in place, as a request without a
 * session is (`gateway/plans/plan-stateless`). A compaction the next turn
 * would trigger is not run: the figure is the context as it stands.
 */

import { type ChatMessage, countMessageTokens } from "@condense/core";
import type { Context } from "hono";
import { ApiError } from "../api/errors";
import { renderMessages } from "../api/formats";
import { unwrap } from "../api/rpc-result";
import type { AppEnv } from "../http/app-env";
import { messageHashes } from "../messages/history-hash";
import { sessionStub } from "../session/session-stub";
import type { GatewayContext } from "../session/turns/gateway-context";
import { packHashes } from "../session/turns/packed-hashes";
import { requestSession } from "./agent-identity";
import { readableHistory } from "./plans/plan-request";
import { fitStateless } from "./plans/plan-stateless";
import { sinceProviderCompaction } from "./plans/provider-compaction";
import { NO_MARKING, referenceMessages, renderReference } from "./plans/render-context";
import { requestOverhead } from "./plans/request-overhead";
import { condenseRequest, GATEWAY_HEADERS } from "./protocols/condense-headers";
import type { GatewayProtocol, RequestBody } from "./protocols/protocol";

export interface PreviewRequest {
  env: Env;
  protocol: GatewayProtocol;
  body: RequestBody;
  /** The body as the client sent it. */
  text: string;
  sessionId: string | undefined;
  contextWindow: number | undefined;
  userId: string;
  requestId: string;
}

export interface Preview {
  /** The body the gateway would send (the request's own when it would send it unchanged). */
  body: RequestBody;
  /** The request's bytes, when `body` is the request unchanged. */
  text?: string;
  /** The messages of `body`, canonical; undefined when the engine cannot read the history. */
  messages?: ChatMessage[];
  /** The engine's count of `body`'s input: its messages and its fixed overhead (tool definitions). */
  tokens?: number;
  /** The gateway's response headers: the session, and the tokens counted. */
  headers: Record<string, string>;
}

/** The session's context for `canonical` with its new messages, or undefined when it has none. */
async function sessionContext(
  request: PreviewRequest,
  sessionId: string,
  canonical: ChatMessage[],
): Promise<Omit<Preview, "headers"> | undefined> {
  const key = { userId: request.userId, sessionId, requestId: request.requestId };
  const stub = sessionStub(request.env, key);
  const hashes = await messageHashes(canonical);
  let served: GatewayContext | undefined;
  try {
    ({ served } = unwrap<{ served?: GatewayContext }>(
      await stub.gatewayPreview(key, { hashes: packHashes(hashes) }),
    ));
  } catch (error) {
    // A session its first request has not created yet: the history is all there is.
    if (error instanceof ApiError && error.code === "not_found") return undefined;
    throw error;
  }
  if (served === undefined) return undefined;
  const { protocol, body } = request;
  const reference = served.context.byReference;
  // No cache markers: a count does not read or write the provider's cache.
  const rendered = renderReference(reference, canonical, protocol.format, NO_MARKING);
  const messages = referenceMessages(reference, canonical);
  return {
    ...(rendered === undefined
      ? { body, text: request.text }
      : { body: protocol.withContext(body, rendered) }),
    ...(messages !== undefined ? { messages } : {}),
  };
}

export async function previewRequest(request: PreviewRequest): Promise<Preview> {
  const { protocol, body, text, sessionId } = request;
  const headers: Record<string, string> =
    sessionId === undefined ? {} : { [GATEWAY_HEADERS.session]: sessionId };
  const history = protocol.history(body);
  const read = history === undefined ? undefined : readableHistory(protocol, history, text.length);
  const canonical = read === undefined ? undefined : sinceProviderCompaction(read);
  // History kept on the provider's side, or one the engine cannot read: the provider's to judge.
  if (canonical === undefined) return { body, text, headers };
  const model = String(body.model);
  const overheadTokens = requestOverhead(protocol, body);
  let preview =
    sessionId === undefined ? undefined : await sessionContext(request, sessionId, canonical);
  if (preview === undefined) {
    const maxOutputTokens = protocol.maxOutputTokens(body);
    const fit = await fitStateless(canonical, model, {
      ...(request.contextWindow !== undefined ? { contextWindow: request.contextWindow } : {}),
      ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
      overheadTokens,
    });
    preview = {
      ...(fit.tier === null
        ? { body, text }
        : { body: protocol.withContext(body, renderMessages(fit.messages, protocol.format)) }),
      messages: fit.messages,
    };
  }
  if (preview.messages === undefined) return { ...preview, headers };
  const tokens = countMessageTokens(preview.messages, model) + overheadTokens;
  headers[GATEWAY_HEADERS.tokens] = String(tokens);
  return { ...preview, tokens, headers };
}

/** The preview of a gateway request as it came: its session taken as a model request's is. */
export async function previewOf(
  c: Context<AppEnv>,
  protocol: GatewayProtocol,
  body: RequestBody,
  text: string,
): Promise<Preview> {
  const explicit = condenseRequest(c.req.raw.headers);
  const session = await requestSession(explicit.sessionId, c.req.raw.headers, body);
  const preview = await previewRequest({
    env: c.env,
    protocol,
    body,
    text,
    sessionId: session?.id,
    contextWindow: explicit.contextWindow,
    userId: c.get("userId"),
    requestId: c.get("requestId"),
  });
  if (session !== undefined) preview.headers[GATEWAY_HEADERS.sessionSource] = session.source;
  return preview;
}
