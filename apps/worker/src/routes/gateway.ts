/**
 * @module routes/gateway
 * The gateway: `/v1/gateway/{upstream}/…` speaks OpenAI Chat Completions
 * (`/chat/completions`), OpenAI Responses (`/responses`) and Anthropic
 * Messages (`/v1/messages`), so an agent points its SDK's base URL here and
 * changes nothing else. `{upstream}` is a name the deployment configures
 * (`gateway/upstreams`).
 *
 * With `X-Condense-Session` the request's history is matched with the session
 * (`session/gateway-turn`), its new messages are appended, and the session's
 * context goes upstream in place of the history, the request's other fields
 * untouched and the request's cache markers placed on it
 * (`gateway/cache-markers`); the answer is appended when it is complete (a
 * stream, once it ends; a stream the client abandons appends nothing).
 * Without it, a history that does not fit is compacted in place and nothing is
 * stored. A history the engine cannot read (malformed: items and blocks of
 * types it does not know it keeps opaque) is forwarded unchanged, for the
 * provider to judge (X-Condense-Passthrough: unreadable).
 *
 * An upstream overflow (the classifier of `/overflow`) is compacted away and
 * retried, at most twice, before any byte reaches the client; then the
 * upstream's error is returned as it was. Every other upstream error passes
 * through with its status and body; the gateway's own errors come in the
 * route's protocol shape, so the SDKs raise their own error classes.
 *
 * A session whose setting `recall` is on gets the recall tool added, and its
 * calls answered here, out of the client's sight (`gateway/recall-rounds`).
 */

import {
  type ChatMessage,
  isContextOverflowError,
  type MarkerPlacement,
  type MessageFormat,
  parseContextWindow,
  parseOverflowTokens,
  sendableMessages,
} from "@condense/core";
import type { OpenAPIHono, z } from "@hono/zod-openapi";
import { createParser } from "eventsource-parser";
import type { Context } from "hono";
import { ApiError, invalidRequest } from "../api/errors";
import { canonicalMessages, renderMessages } from "../api/formats";
import { unwrap } from "../api/rpc-result";
import {
  ErrorResponse,
  GatewayChatCompletion,
  GatewayChatRequest,
  GatewayHeaders,
  GatewayMessage,
  GatewayMessagesRequest,
  GatewayModels,
  GatewayResponse,
  GatewayResponsesRequest,
  GatewayUpstreamParam,
  SessionIdParam,
} from "../api/schemas";
import { anthropicProtocol } from "../gateway/anthropic-protocol";
import { cacheMarkerPlacement, carriesCacheMarkers } from "../gateway/cache-markers";
import { chatProtocol } from "../gateway/chat-protocol";
import { gatewayCredentials } from "../gateway/credentials";
import { messageHashes } from "../gateway/history-hash";
import type {
  GatewayProtocol,
  ProtocolAnswer,
  RequestBody,
  RequestHistory,
  StreamAccumulator,
} from "../gateway/protocol";
import { RECALL_TOOL, runRecallRounds, type UpstreamReply } from "../gateway/recall-rounds";
import { type RecallSource, sessionRecallSource } from "../gateway/recall-source";
import { requestOverhead } from "../gateway/request-overhead";
import { responsesProtocol } from "../gateway/responses-protocol";
import { fitStateless } from "../gateway/stateless";
import { relayStream } from "../gateway/stream-relay";
import {
  callUpstream,
  clientResponseHeaders,
  readUpstreamText,
  type UpstreamOutcome,
  upstreamRequestHeaders,
} from "../gateway/upstream-call";
import { configuredUpstreams, resolveUpstream, type Upstream } from "../gateway/upstreams";
import type { AppEnv } from "../http/app-env";
import { readJsonBody } from "../http/body";
import { ClientClosedError, clientClosedResponse } from "../http/client-closed";
import { requestIdHeader, validate } from "../http/route";
import { type ContextData, withPinned } from "../session/context-view";
import type { GatewayContextByReference } from "../session/gateway-context";
import type { GatewayOverflowResult, GatewayTurnResult } from "../session/gateway-turn";
import type { SessionCall } from "../session/session-record";
import { requestThread } from "../session/threads";
import { sessionStub } from "./sessions";

/** Response headers the gateway adds. */
export const GATEWAY_HEADERS = {
  session: "X-Condense-Session",
  generation: "X-Condense-Generation",
  tokens: "X-Condense-Tokens",
  compaction: "X-Condense-Compaction",
  contextWindow: "X-Condense-Context-Window",
  stateless: "X-Condense-Stateless",
  passthrough: "X-Condense-Passthrough",
  retries: "X-Condense-Overflow-Retries",
  recallRounds: "X-Condense-Recall-Rounds",
} as const;

/** Overflows recovered (compacted and retried) per request before the upstream's error is returned. */
const MAX_OVERFLOW_RETRIES = 2;
const DEFAULT_TIMEOUT_MS = 600_000;

function millis(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return Number.isFinite(parsed) && parsed > 0 ? Math.floor(parsed) : fallback;
}

/** Waits for `promise` after the response (the answer's append), where the runtime allows it. */
function keepAlive(c: Context<AppEnv>, promise: Promise<void>): void {
  try {
    c.executionCtx.waitUntil(promise);
  } catch {
    // No execution context (the app called directly in a test): the promise runs on its own.
  }
}

/** The gateway's own error in the route's protocol shape. */
function protocolError(c: Context<AppEnv>, protocol: GatewayProtocol, error: unknown): Response {
  if (error instanceof ClientClosedError) return clientClosedResponse(c);
  const apiError =
    error instanceof ApiError
      ? error
      : new ApiError(
          500,
          "internal_error",
          "internal error; retry later, and report the X-Request-Id if it persists",
        );
  if (!(error instanceof ApiError)) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "gateway error",
        requestId: c.get("requestId"),
        error: error instanceof Error ? error.name : typeof error,
      }),
    );
  }
  c.get("log").errorCode = apiError.code;
  const headers = new Headers({ "content-type": "application/json", ...apiError.headers });
  return new Response(
    JSON.stringify(protocol.errorBody(apiError.status, apiError.code, apiError.message)),
    { status: apiError.status, headers },
  );
}

function unknownUpstream(env: Env, name: string): ApiError {
  const names = [...configuredUpstreams(env).keys()].join(", ");
  return new ApiError(
    404,
    "unknown_upstream",
    `no upstream named ${JSON.stringify(name)} on this deployment; use one of: ${names} (GATEWAY_UPSTREAMS adds more)`,
  );
}

function contextWindowHeader(c: Context<AppEnv>): number | undefined {
  const raw = c.req.header(GATEWAY_HEADERS.contextWindow);
  if (raw === undefined) return undefined;
  try {
    return parseContextWindow(raw);
  } catch {
    throw invalidRequest(
      "header",
      GATEWAY_HEADERS.contextWindow,
      `${GATEWAY_HEADERS.contextWindow} must be a number of tokens, e.g. 128000 or "128k" (got ${JSON.stringify(raw.slice(0, 40))})`,
    );
  }
}

function sessionHeader(c: Context<AppEnv>): string | undefined {
  const raw = c.req.header(GATEWAY_HEADERS.session);
  if (raw === undefined) return undefined;
  return validate(SessionIdParam, { id: raw }, "path").id;
}

function itemsOnlyInResponses(): ApiError {
  return new ApiError(
    409,
    "format_not_available",
    "this session's context holds OpenAI compaction items (strategy: openai), which only the Responses API can carry; use /responses, or set the session's strategy to local",
  );
}

/** Where a request's cache markers go on a context (`gateway/cache-markers`). */
type MarkersFor = (context: ChatMessage[], stablePrefix: number) => MarkerPlacement | undefined;

/** Renders canonical context messages (or a view of OpenAI items) in the protocol's format. */
function renderContext(
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
function renderReference(
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

/** What a request sends upstream, and what happens to an overflow and to the answer. */
interface ForwardPlan {
  body: RequestBody;
  /** The request's body as the client sent it, when `body` is that request unchanged. */
  text?: string;
  headers: Record<string, string>;
  /** A smaller body after the upstream reported an overflow, or undefined when nothing can help. */
  recover(error: { status: number; text: string }): Promise<RequestBody | undefined>;
  /** Handles the complete answer (appends it to the session); never rejects. */
  answered(answer: ProtocolAnswer): Promise<void>;
  /** Set when `body` declares the recall tool that the gateway answers (`gateway/recall-rounds`). */
  recall?: RecallSource;
}

const nothingToStore = async (): Promise<void> => {};

function unchangedPlan(
  body: RequestBody,
  text: string,
  headers: Record<string, string>,
): ForwardPlan {
  return { body, text, headers, recover: async () => undefined, answered: nothingToStore };
}

async function statelessPlan(
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
      stablePrefix: 0,
    });
    return protocol.withContext(body, renderMessages(messages, protocol.format, { markers }));
  };
  return {
    ...(fit.tier === null ? { body, text } : { body: bodyFor(fit.messages) }),
    headers,
    async recover(error) {
      const stated = parseOverflowTokens({ status: error.status, body: error.text });
      // The window the upstream stated, or, when it states none, a fifth less than what it refused
      // (its messages; the overhead beside them stays as it is).
      const limit = stated?.limit ?? Math.floor(fit.tokens * 0.8) + overheadTokens;
      const contextWindow = Math.min(fit.contextWindow, limit);
      const next = await fitStateless(canonical, model, {
        ...fitOptions,
        contextWindow,
        force: true,
      });
      if (next.tokens >= fit.tokens) return undefined;
      fit = next;
      headers[GATEWAY_HEADERS.tokens] = String(fit.tokens);
      headers[GATEWAY_HEADERS.compaction] = String(fit.tier ?? "none");
      return bodyFor(fit.messages);
    },
    answered: nothingToStore,
  };
}

async function sessionPlan(
  c: Context<AppEnv>,
  protocol: GatewayProtocol,
  body: RequestBody,
  text: string,
  canonical: ChatMessage[],
  key: SessionCall,
  contextWindow: number | undefined,
): Promise<ForwardPlan> {
  const stub = sessionStub(c.env, key);
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
    // in place if it must be, and nothing is stored.
    const reason = turn.kind === "refused" ? turn.reason : "busy";
    return statelessPlan(protocol, body, text, canonical, {
      contextWindow,
      headers: { ...base, [GATEWAY_HEADERS.stateless]: reason },
    });
  }
  const served = turn;
  const log = c.get("log");
  log.tokensAfter = served.tokens;
  if (served.compactionTier !== null) log.tier = served.compactionTier;
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
      ? renderContext(served.context.whole, protocol.format, markersFor)
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
        // Not an overflow by the session's reading, or the session is gone: the error goes back as it was.
        if (refused instanceof ApiError) return undefined;
        throw refused;
      }
      if (recovered.compactionTier !== null) {
        headers[GATEWAY_HEADERS.compaction] = String(recovered.compactionTier);
      }
      // The retry carries this request's own history, compacted: never messages other requests
      // appended meanwhile (an answer its client abandoned), which are not this conversation's turn.
      if (recovered.kind === "moved-on") {
        const maxOutputTokens = protocol.maxOutputTokens(body);
        const fit = await fitStateless(canonical, model, {
          contextWindow: recovered.contextWindow,
          ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
          force: true,
        });
        // Nothing smaller to send (the newest messages alone are over): the same context would be
        // refused again, so the upstream's error goes back as it was.
        if (fit.tokens >= sentTokens) return undefined;
        sentTokens = fit.tokens;
        headers[GATEWAY_HEADERS.tokens] = String(fit.tokens);
        return outgoing(protocol.withContext(body, renderMessages(fit.messages, protocol.format)));
      }
      if (recovered.tokens >= sentTokens) return undefined;
      sentTokens = recovered.tokens;
      headers[GATEWAY_HEADERS.tokens] = String(recovered.tokens);
      const retried = renderReference(
        recovered.context.byReference,
        canonical,
        protocol.format,
        markersFor,
      );
      // Nothing compacted: the same request would be refused the same way.
      if (retried === undefined) return undefined;
      return outgoing(protocol.withContext(body, retried));
    },
    async answered(answer) {
      try {
        const messages = canonicalMessages(answer.messages, protocol.format);
        const result = await stub.gatewayAnswer(key, {
          generation: served.generation,
          afterSeq: served.lastSeq,
          messages,
          hashes: await messageHashes(messages),
          model,
          ...(answer.inputTokens !== undefined
            ? { usage: { inputTokens: answer.inputTokens } }
            : {}),
        });
        if (result.ok && !result.value.appended) {
          console.log(
            JSON.stringify({
              level: "info",
              msg: "gateway answer not stored",
              requestId: key.requestId,
              reason: result.value.reason,
            }),
          );
        }
      } catch (error) {
        // An answer the engine cannot read (an item type it does not know) is not stored; the next
        // turn's history carries it, and starts a new generation if it must.
        console.error(
          JSON.stringify({
            level: "warn",
            msg: "gateway answer not stored",
            requestId: key.requestId,
            error:
              error instanceof ApiError
                ? error.code
                : error instanceof Error
                  ? error.name
                  : "error",
          }),
        );
      }
    },
  };
}

/** The upstream's response to the client: a stream relayed, or a body read and returned. */
async function respond(
  c: Context<AppEnv>,
  protocol: GatewayProtocol,
  outcome: Extract<UpstreamOutcome, { kind: "response" }>,
  plan: ForwardPlan,
  accumulator: () => StreamAccumulator,
): Promise<Response> {
  const { response } = outcome;
  const headers = clientResponseHeaders(response.headers);
  for (const [name, value] of Object.entries(plan.headers)) headers.set(name, value);
  const streamed = (response.headers.get("content-type") ?? "").includes("text/event-stream");
  if (streamed && response.body !== null) {
    // The deadline for the response is met; from here each pause of the stream has its own.
    outcome.settle();
    const relay = relayStream(response.body, {
      accumulator: accumulator(),
      idleTimeoutMs: millis(c.env.GATEWAY_STREAM_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
      errorEvent: (reason) =>
        protocol.streamError(
          reason === "timeout" ? "upstream_timeout" : "upstream_unreachable",
          reason === "timeout"
            ? "the upstream sent nothing for longer than the gateway waits between two chunks (GATEWAY_STREAM_IDLE_TIMEOUT_MS); the answer is incomplete"
            : "the upstream's stream broke off; the answer is incomplete",
        ),
      onComplete: plan.answered,
    });
    keepAlive(c, relay.done);
    return new Response(relay.body, { status: response.status, headers });
  }
  const text = await readUpstreamText(outcome);
  if (text === undefined) throw timedOut();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const answer = response.ok ? protocol.answer(parsed) : undefined;
  // Stored after the response, off the turn's path; a next turn that comes first carries the answer
  // in its history, and this append then finds the session moved on.
  if (answer !== undefined) keepAlive(c, plan.answered(answer));
  return new Response(text, { status: response.status, headers });
}

function timedOut(): ApiError {
  return new ApiError(
    504,
    "upstream_timeout",
    "the upstream did not answer in time (GATEWAY_TIMEOUT_MS); retry, or raise the deployment's limit",
  );
}

/** Calls the upstream; a timeout or an unreachable upstream is the gateway's error. */
async function reach(
  url: string,
  headers: Headers,
  payload: string,
  timeoutMs: number,
): Promise<Extract<UpstreamOutcome, { kind: "response" }>> {
  const outcome = await callUpstream(url, { method: "POST", headers, body: payload }, timeoutMs);
  if (outcome.kind === "timeout") throw timedOut();
  if (outcome.kind === "unreachable") {
    throw new ApiError(
      502,
      "upstream_unreachable",
      `the upstream could not be reached (${outcome.detail}); check its base URL in the deployment's configuration`,
    );
  }
  return outcome;
}

/** A response read whole. */
async function readReply(
  outcome: Extract<UpstreamOutcome, { kind: "response" }>,
): Promise<UpstreamReply> {
  const text = await readUpstreamText(outcome);
  if (text === undefined) throw timedOut();
  return { status: outcome.response.status, headers: outcome.response.headers, text };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isStream(headers: Headers): boolean {
  return (headers.get("content-type") ?? "").includes("text/event-stream");
}

/** The answer of a whole reply: a JSON body, or a stream's events run through the accumulator. */
function replyAnswer(protocol: GatewayProtocol, reply: UpstreamReply): ProtocolAnswer | undefined {
  if (!isStream(reply.headers)) return protocol.answer(parseJson(reply.text));
  const accumulator = protocol.accumulator();
  const parser = createParser({ onEvent: (event) => accumulator.event(event) });
  parser.feed(reply.text);
  return accumulator.result();
}

/**
 * The client's answer to a request that declares the recall tool: recall calls answered inside the
 * gateway (`gateway/recall-rounds`), then the answer that calls no recall returned and stored. A
 * stream is read whole before a byte of it is relayed (whether it calls recall is known only at its
 * end), then given to the client as it came; the response deadline covers the whole stream.
 */
async function respondAfterRecall(
  c: Context<AppEnv>,
  protocol: GatewayProtocol,
  outcome: Extract<UpstreamOutcome, { kind: "response" }>,
  plan: ForwardPlan,
  recall: RecallSource,
  sent: RequestBody,
  send: (body: RequestBody) => Promise<UpstreamReply>,
): Promise<Response> {
  const first = await readReply(outcome);
  const read = (reply: UpstreamReply) => replyAnswer(protocol, reply);
  const { reply, rounds } = await runRecallRounds(protocol, sent, first, recall, { send, read });
  plan.headers[GATEWAY_HEADERS.recallRounds] = String(rounds);
  const headers = clientResponseHeaders(reply.headers);
  for (const [name, value] of Object.entries(plan.headers)) headers.set(name, value);
  const ok = reply.status >= 200 && reply.status < 300;
  const answer = ok ? read(reply) : undefined;
  if (answer !== undefined) {
    // Only the final answer is stored, not the hidden rounds: the client's next history holds its
    // request and this answer, and must still extend the session for the next turn to match it.
    // Its provider count is the first round's: the prompt the session served, without the recalled
    // material, which is what calibrates the session's own count.
    const { inputTokens: _rounds, ...final } = answer;
    const firstTokens = rounds === 0 ? answer.inputTokens : read(first)?.inputTokens;
    keepAlive(
      c,
      plan.answered(firstTokens === undefined ? final : { ...final, inputTokens: firstTokens }),
    );
  }
  return new Response(reply.text, { status: reply.status, headers });
}

/** Sends `plan.body` upstream, recovering from overflows, and answers the client. */
async function forward(
  c: Context<AppEnv>,
  protocol: GatewayProtocol,
  url: string,
  headers: Headers,
  plan: ForwardPlan,
): Promise<Response> {
  const timeoutMs = millis(c.env.GATEWAY_TIMEOUT_MS, DEFAULT_TIMEOUT_MS);
  // The request as it came while nothing in it changed; re-serialized only once it did.
  let payload = plan.text ?? JSON.stringify(plan.body);
  let sent = plan.body;
  for (let retries = 0; ; retries++) {
    const outcome = await reach(url, headers, payload, timeoutMs);
    if (retries > 0) plan.headers[GATEWAY_HEADERS.retries] = String(retries);
    if (outcome.response.ok && plan.recall !== undefined) {
      const send = async (body: RequestBody) =>
        readReply(await reach(url, headers, JSON.stringify(body), timeoutMs));
      return respondAfterRecall(c, protocol, outcome, plan, plan.recall, sent, send);
    }
    if (outcome.response.ok || retries >= MAX_OVERFLOW_RETRIES) {
      return respond(c, protocol, outcome, plan, protocol.accumulator);
    }
    const text = await readUpstreamText(outcome);
    if (text === undefined) throw timedOut();
    const status = outcome.response.status;
    const smaller = isContextOverflowError({ status, body: text })
      ? await plan.recover({ status, text })
      : undefined;
    if (smaller === undefined) {
      // Not an overflow, or nothing more to compact: the upstream's error as it was.
      const passed = clientResponseHeaders(outcome.response.headers);
      for (const [name, value] of Object.entries(plan.headers)) passed.set(name, value);
      return new Response(text, { status, headers: passed });
    }
    sent = smaller;
    payload = JSON.stringify(smaller);
  }
}

/**
 * The request's history, canonical; undefined when the engine cannot read it (its own validation
 * never stands between an agent and its model). A message over the size limit is still refused.
 */
function readableHistory(
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

async function serveModelRequest(
  c: Context<AppEnv>,
  protocol: GatewayProtocol,
  schema: z.ZodType,
  path: string,
): Promise<Response> {
  const name = c.req.param("upstream") ?? "";
  const upstream = resolveUpstream(c.env, name);
  if (upstream === undefined) throw unknownUpstream(c.env, name);
  const credentials = await gatewayCredentials(c.env, c.req.raw.headers, upstream, protocol.name);
  c.set("userId", credentials.userId);
  const log = c.get("log");
  log.user = credentials.userId;
  const read = await readJsonBody(c.req.raw);
  const body = validate(schema, read.value, "body") as RequestBody;
  const sessionId = sessionHeader(c);
  const contextWindow = contextWindowHeader(c);
  const url = `${upstream.baseUrl}${path}`;
  const headers = upstreamRequestHeaders(c.req.raw.headers, credentials.upstreamAuth);

  const history = protocol.history(body);
  let plan: ForwardPlan;
  if (history === undefined) {
    plan = unchangedPlan(body, read.text, { [GATEWAY_HEADERS.passthrough]: "server-state" });
  } else {
    const canonical = readableHistory(protocol, history, read.text.length);
    if (canonical === undefined) {
      // The engine cannot read this history, but the provider may: it judges it, nothing is stored.
      plan = unchangedPlan(body, read.text, { [GATEWAY_HEADERS.passthrough]: "unreadable" });
    } else if (sessionId === undefined) {
      plan = await statelessPlan(protocol, body, read.text, canonical, {
        contextWindow,
        headers: {},
      });
    } else {
      log.session = sessionId;
      const key: SessionCall = {
        userId: credentials.userId,
        sessionId,
        requestId: c.get("requestId"),
      };
      plan = await sessionPlan(c, protocol, body, read.text, canonical, key, contextWindow);
    }
  }
  return forward(c, protocol, url, headers, plan);
}

async function serveModels(
  c: Context<AppEnv>,
  protocol: GatewayProtocol,
  path: string,
): Promise<Response> {
  const name = c.req.param("upstream") ?? "";
  const upstream: Upstream | undefined = resolveUpstream(c.env, name);
  if (upstream === undefined) throw unknownUpstream(c.env, name);
  const credentials = await gatewayCredentials(c.env, c.req.raw.headers, upstream, protocol.name);
  c.set("userId", credentials.userId);
  c.get("log").user = credentials.userId;
  const query = new URL(c.req.url).search;
  const headers = upstreamRequestHeaders(c.req.raw.headers, credentials.upstreamAuth);
  headers.delete("content-type");
  const outcome = await callUpstream(
    `${upstream.baseUrl}${path}${query}`,
    { method: "GET", headers },
    millis(c.env.GATEWAY_TIMEOUT_MS, DEFAULT_TIMEOUT_MS),
  );
  if (outcome.kind === "timeout") throw timedOut();
  if (outcome.kind === "unreachable") {
    throw new ApiError(
      502,
      "upstream_unreachable",
      `the upstream could not be reached (${outcome.detail})`,
    );
  }
  const text = await readUpstreamText(outcome);
  if (text === undefined) throw timedOut();
  return new Response(text, {
    status: outcome.response.status,
    headers: clientResponseHeaders(outcome.response.headers),
  });
}

interface GatewayRoute {
  method: "get" | "post";
  /** After `/v1/gateway/{upstream}`; also the path on the upstream. */
  path: string;
  protocol: GatewayProtocol;
  request?: z.ZodType;
  response: z.ZodType;
  summary: string;
}

const ROUTES: GatewayRoute[] = [
  {
    method: "post",
    path: "/chat/completions",
    protocol: chatProtocol,
    request: GatewayChatRequest,
    response: GatewayChatCompletion,
    summary: "OpenAI Chat Completions through Condense",
  },
  {
    method: "post",
    path: "/responses",
    protocol: responsesProtocol,
    request: GatewayResponsesRequest,
    response: GatewayResponse,
    summary: "OpenAI Responses through Condense",
  },
  {
    method: "post",
    path: "/v1/messages",
    protocol: anthropicProtocol,
    request: GatewayMessagesRequest,
    response: GatewayMessage,
    summary: "Anthropic Messages through Condense",
  },
  {
    method: "get",
    path: "/models",
    protocol: chatProtocol,
    response: GatewayModels,
    summary: "The upstream's models (OpenAI), passed through",
  },
  {
    method: "get",
    path: "/v1/models",
    protocol: anthropicProtocol,
    response: GatewayModels,
    summary: "The upstream's models (Anthropic), passed through",
  },
];

const DESCRIPTION =
  "Send the whole history, as agents do. With `X-Condense-Session` the history is matched with the session, its new messages (and the model's answer) are appended, and the session's compacted context is forwarded with the request's other fields untouched; a history that does not extend the session's starts a new generation. Without it, a history that does not fit is compacted in place and nothing is stored. Response headers: X-Condense-Session, X-Condense-Generation, X-Condense-Tokens (the tokens of the context sent upstream, after an overflow retry those of the retried one), X-Condense-Compaction (the tier of the compaction the context sent comes from, the first time its result is sent: one in this request, in its overflow retry, or in the background since the previous request; else none). Errors the gateway makes come in the protocol's shape; the upstream's pass through.";

/**
 * A refusal the app makes before any gateway route runs (a wrong method, an unknown path), in the
 * protocol shape of the gateway path it was made for, so an SDK reads it as it reads the gateway's
 * own errors; undefined for a path outside the gateway. A path no route serves gets Anthropic's shape
 * under `/v1/` (where the Anthropic SDK sends everything), else OpenAI's.
 */
export function gatewayRefusal(c: Context<AppEnv>, error: ApiError): Response | undefined {
  const match = /^\/v1\/gateway\/[^/]+(\/.*?)?\/?$/.exec(c.req.path);
  if (match === null) return undefined;
  const rest = match[1] ?? "";
  const protocol =
    ROUTES.find((route) => route.path === rest)?.protocol ??
    (rest.startsWith("/v1/") ? anthropicProtocol : chatProtocol);
  return protocolError(c, protocol, error);
}

export function gatewayRoutes(app: OpenAPIHono<AppEnv>): void {
  const errorContent = { "application/json": { schema: ErrorResponse } };
  for (const route of ROUTES) {
    const openApiPath = `/v1/gateway/{upstream}${route.path}`;
    app.openAPIRegistry.registerPath({
      method: route.method,
      path: openApiPath,
      summary: route.summary,
      description: route.request === undefined ? undefined : DESCRIPTION,
      tags: ["gateway"],
      security: [{ bearer: [] }],
      request: {
        params: GatewayUpstreamParam,
        headers: GatewayHeaders,
        ...(route.request !== undefined
          ? { body: { required: true, content: { "application/json": { schema: route.request } } } }
          : {}),
      },
      responses: {
        200: {
          description:
            "The upstream's answer: JSON, or server-sent events when the request streams",
          headers: requestIdHeader,
          content: { "application/json": { schema: route.response } },
        },
        401: {
          description: "No valid Condense credential, or no provider key",
          headers: requestIdHeader,
          content: errorContent,
        },
        404: { description: "Unknown upstream", headers: requestIdHeader, content: errorContent },
        502: {
          description: "The upstream could not be reached",
          headers: requestIdHeader,
          content: errorContent,
        },
        504: {
          description: "The upstream did not answer in time",
          headers: requestIdHeader,
          content: errorContent,
        },
      },
    });
    const honoPath = `/v1/gateway/:upstream${route.path}`;
    const { protocol, request } = route;
    if (route.method === "get") {
      app.get(honoPath, async (c) => {
        try {
          return await serveModels(c, protocol, route.path);
        } catch (error) {
          return protocolError(c, protocol, error);
        }
      });
    } else if (request !== undefined) {
      app.post(honoPath, async (c) => {
        try {
          return await serveModelRequest(c, protocol, request, route.path);
        } catch (error) {
          return protocolError(c, protocol, error);
        }
      });
    }
  }
}
