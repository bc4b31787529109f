/**
 * @module routes/gateway
 * The gateway: `/v1/gateway/{upstream}/…` speaks OpenAI Chat Completions
 * (`/chat/completions`), OpenAI Responses (`/responses`), Anthropic
 * Messages (`/v1/messages`) and Gemini (`/v1beta/models/{model}:generateContent`,
 * `:streamGenerateContent`), so an agent points its SDK's base URL here and
 * changes nothing else; `/models` and `/v1/models` pass the upstream's list
 * through. Anthropic's `/v1/messages/count_tokens`, Gemini's `:countTokens`
 * and OpenAI's `/responses/compact` answer for the context the gateway would
 * send (`gateway/provider-endpoints`). `{upstream}` is a name the deployment configures
 * (`gateway/upstream/upstreams`); the caller authenticates its own way
 * (`gateway/upstream/credentials`).
 *
 * A request is planned (`gateway/plans/plan-request`: with its session, stateless,
 * or unchanged) and forwarded (`gateway/forward`: overflows compacted away and
 * retried; `gateway/respond`: streams relayed, answers stored). Each request
 * counts against its user's rate limit (`http/rate-limit`), and a model
 * request on the deployment's own key against their daily tokens
 * (`gateway/spending-guard`). Every upstream
 * error passes through with its status and body; the gateway's own errors,
 * its refusals of a wrong method or an unknown path included, come in the
 * route's protocol shape, so the SDKs raise their own error classes.
 */

import type { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { writeDataPoint } from "../analytics/data-points";
import { ApiError, type ErrorShape } from "../api/errors";
import { unwrap } from "../api/rpc-result";
import {
  GatewayChatCompletion,
  GatewayChatRequest,
  GatewayCompactedResponse,
  GatewayCountTokensRequest,
  GatewayGeminiParams,
  GatewayGenerateContentRequest,
  GatewayGenerateContentResponse,
  GatewayHeaders,
  GatewayMessage,
  GatewayMessagesRequest,
  GatewayModels,
  GatewayResponse,
  GatewayResponsesCompactRequest,
  GatewayResponsesRequest,
  GatewayTokenCount,
  GatewayUpstreamParam,
} from "../api/schemas";
import { workerConfig } from "../config/worker-config";
import { type AgentSession, requestSession } from "../gateway/agent-identity";
import { forward } from "../gateway/forward";
import { withKeepAlive } from "../gateway/keep-alive";
import type { ForwardPlan } from "../gateway/plans/forward-plan";
import { planRequest } from "../gateway/plans/plan-request";
import { anthropicProtocol } from "../gateway/protocols/anthropic-protocol";
import { chatProtocol } from "../gateway/protocols/chat-protocol";
import { expandCondenseCompactions } from "../gateway/protocols/condense-compaction";
import { condenseRequest, GATEWAY_HEADERS } from "../gateway/protocols/condense-headers";
import {
  geminiMethod,
  geminiProtocol,
  geminiUpstreamPath,
} from "../gateway/protocols/gemini-protocol";
import type { GatewayProtocol, RequestBody } from "../gateway/protocols/protocol";
import { responsesProtocol } from "../gateway/protocols/responses-protocol";
import { serveCount, serveResponsesCompact } from "../gateway/provider-endpoints";
import { meteredPlan, spendingGuard } from "../gateway/spending-guard";
import { gatewayAuth } from "../gateway/upstream/credentials";
import {
  clientResponseHeaders,
  gatewayTimeouts,
  reachUpstream,
  readUpstreamBody,
  upstreamRequestHeaders,
} from "../gateway/upstream/upstream-call";
import type { AppEnv } from "../http/app-env";
import { rateLimit } from "../http/rate-limit";
import { defineRoute } from "../http/route";
import { sessionStub } from "../session/session-stub";

interface GatewayRouteBase {
  /** After `/v1/gateway/{upstream}`; also the path on the upstream. */
  path: string;
  protocol: GatewayProtocol;
  response: z.ZodType;
  summary: string;
}

/**
 * A model request (`post`, its body checked by `request`), the upstream's models (`get`),
 * Gemini's methods of a model (`gemini`: the method is in the path), or a provider's endpoint beside
 * its model requests (`count`: Anthropic's count of tokens; `compact`: OpenAI's compaction).
 */
type GatewayRoute =
  | (GatewayRouteBase & { method: "post" | "gemini" | "count" | "compact"; request: z.ZodType })
  | (GatewayRouteBase & { method: "get" });

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
    method: "count",
    path: "/v1/messages/count_tokens",
    protocol: anthropicProtocol,
    request: GatewayCountTokensRequest,
    response: GatewayTokenCount,
    summary: "Anthropic count_tokens, for the context the gateway would send",
  },
  {
    method: "compact",
    path: "/responses/compact",
    protocol: responsesProtocol,
    request: GatewayResponsesCompactRequest,
    response: GatewayCompactedResponse,
    summary: "OpenAI Responses compaction, by the upstream or by Condense",
  },
  {
    method: "gemini",
    path: "/v1beta/models/{model}",
    protocol: geminiProtocol,
    request: GatewayGenerateContentRequest,
    response: GatewayGenerateContentResponse,
    summary: "Gemini generateContent through Condense",
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
  "Send the whole history, as agents do. With `X-Condense-Session` the history is matched with the session, its new messages (and the model's answer) are appended, and the session's compacted context is forwarded with the request's other fields untouched; a history that does not extend the session's starts a new generation, and one the session does not take (a side request: a title, a sub-agent) is forwarded statelessly and kept apart with its answer (`/v1/sessions/{id}/side-requests`). Without it, the session is the one the agent names itself (Claude Code's x-claude-code-session-id or metadata.user_id, Codex's session-id, opencode's x-session-id, a prompt_cache_key, …; see the header's description); `X-Condense-Session: none`, or no identity at all, leaves the request stateless: a history that does not fit is compacted in place and nothing is stored. Response headers: X-Condense-Session, X-Condense-Session-Source (the field that named the session: X-Condense-Session or the agent's own), X-Condense-Generation (on every response under a session: the generation the context comes from, or the session's current one when the request did not touch it), X-Condense-Stateless and X-Condense-Side-Request (the id a side request is kept under), X-Condense-Tokens (the tokens of the context sent upstream, after an overflow retry those of the retried one), X-Condense-Compaction (the tier of the compaction the context sent comes from, the first time its result is sent: one in this request, in its overflow retry, or in the background since the previous request; else none), X-Condense-Keep-Alive (the response was committed after GATEWAY_KEEPALIVE_MS of waiting on a compaction, and kept alive with SSE comments or spaces before the JSON; an error after that comes in the body). A context over its window has the newest tool outputs cut to head and tail (never dropped), a marker naming where the whole output is; a session's context that cannot fit even so is refused (422, context_over_window). An upstream overflow is compacted away and retried (X-Condense-Overflow-Retries), against the window it states scaled by its own count of what it refused; when nothing smaller can be sent, its error passes through with X-Condense-Overflow: passed-through and X-Condense-Overflow-Reason. Errors the gateway makes come in the protocol's shape; the upstream's pass through.";

const COUNT_DESCRIPTION =
  "The tokens of the context the gateway would send for this request, so that an agent's context meter agrees with what its model is sent: with a session whose history this request extends, the session's compacted context followed by the request's new messages; otherwise the history, fitted in place when it does not fit (as without a session). Nothing is stored or compacted. The previewed request goes to the upstream's own `count_tokens` (the provider's tokenizer); an upstream without one (404, 405, 501) is answered with the engine's count, `{ input_tokens }`; the upstream's own errors (a model it does not know: 404 `not_found_error`) pass through. Response headers: X-Condense-Session, X-Condense-Tokens (the engine's count of the previewed request, tool definitions included), X-Condense-Answered-By (`upstream` or `gateway`). Errors come in Anthropic's shape.";

const COMPACT_DESCRIPTION =
  "Forwarded to the upstream's `/responses/compact` as it came (on the deployment's key, its usage counts toward GATEWAY_USER_TOKENS_PER_DAY). An upstream without one (404, 405, 501) is answered by Condense in OpenAI's documented shape (`object: response.compaction`): the input's user messages, then one `compaction` item standing for the rest of the context the gateway would send (the session's compacted context with the request's new messages, or the input itself) compacted now by the engine; sent back in a later request's `input` through the gateway, the item is put back as what it stands for before the request goes upstream. Response headers: X-Condense-Session, X-Condense-Answered-By (`upstream` or `gateway`). Errors come in OpenAI's shape.";

const GEMINI_DESCRIPTION =
  "Gemini's methods of a model: `{model}:generateContent`, `{model}:streamGenerateContent?alt=sse` (server-sent events) and `{model}:countTokens` (for the context the gateway would send, as the Anthropic route `count_tokens` counts it: Gemini's count of it, or the engine's `{ totalTokens }` when the upstream has none). The key goes in `x-goog-api-key` or `?key=`, as Gemini's clients send it; the usage is `usageMetadata` (`cachedContentTokenCount` read from the cache). Thought signatures go back as they came; a model turn compaction rewrote carries its call's signature, or Gemini's documented placeholder.";

const ERRORS = {
  401: "No valid Condense credential, or no provider key",
  404: "Unknown upstream",
  429: "rate_limited: the user's requests are over the deployment's rate limit; budget_exceeded: the user's tokens of the day on the deployment's provider keys reached GATEWAY_USER_TOKENS_PER_DAY (both with Retry-After)",
  502: "The upstream could not be reached",
  504: "The upstream did not answer in time",
};

/**
 * The error shape of a gateway path, for the refusals the app makes before any route runs (a wrong
 * method, an unknown path), so that an SDK reads them as it reads the gateway's own errors; undefined
 * for a path outside the gateway. A path no route serves gets Anthropic's shape under `/v1/` (where
 * the Anthropic SDK sends everything), else OpenAI's.
 */
export function gatewayErrorShape(path: string): ErrorShape | undefined {
  const match = /^\/v1\/gateway\/[^/]+(\/.*?)?\/?$/.exec(path);
  if (match === null) return undefined;
  const rest = match[1] ?? "";
  const protocol =
    ROUTES.find((route) => route.path === rest)?.protocol ??
    (rest.startsWith("/v1beta/")
      ? geminiProtocol
      : rest.startsWith("/v1/")
        ? anthropicProtocol
        : chatProtocol);
  return protocol.errorBody;
}

/**
 * A model request: planned, then forwarded upstream, its connection kept alive while the gateway
 * makes it wait (`gateway/keep-alive`).
 */
async function serveModelRequest(
  c: Context<AppEnv>,
  route: GatewayRoute,
  body: RequestBody,
  text: string,
  upstreamPath = route.path,
  streamed = body.stream === true,
): Promise<Response> {
  const { protocol } = route;
  // The gateway's own compaction items (`/responses/compact` answered by Condense) are put back as
  // what they stand for: no upstream made them.
  const expanded = protocol === responsesProtocol ? expandCondenseCompactions(body) : undefined;
  if (expanded !== undefined)
    return serveModelRequest(c, route, expanded, JSON.stringify(expanded));
  const explicit = condenseRequest(c.req.raw.headers);
  const session = await requestSession(explicit.sessionId, c.req.raw.headers, body);
  const condense = { ...explicit, sessionId: session?.id };
  const upstream = c.get("upstream");
  let planned: ForwardPlan | undefined;
  const keepAlive = {
    intervalMs: workerConfig(c.env).gatewayKeepAliveMs,
    streamed,
    protocol,
    headers: async () => planned?.headers ?? (await waitingHeaders(c, session)),
  };
  return withKeepAlive(c, keepAlive, async (gatewayWait) => {
    const plan = await gatewayWait(
      planRequest({
        ...condense,
        env: c.env,
        log: c.get("log"),
        protocol,
        body,
        text,
        userId: c.get("userId"),
        requestId: c.get("requestId"),
      }),
    );
    planned = withSessionSource(plan, session);
    const headers = upstreamRequestHeaders(c.req.raw.headers, upstream.auth);
    const counted = countedTurn(c, meteredPlan(c, planned), c.req.param("upstream") ?? "", body);
    const target = { url: `${upstream.baseUrl}${upstreamPath}`, headers };
    return forward(c, protocol, target, counted, gatewayWait);
  });
}

/**
 * The headers of a response committed while its request is still being planned: its session and
 * the session's current generation (the request's own, unless it starts one).
 */
async function waitingHeaders(
  c: Context<AppEnv>,
  session: AgentSession | undefined,
): Promise<Record<string, string>> {
  if (session === undefined) return {};
  const key = { userId: c.get("userId"), sessionId: session.id, requestId: c.get("requestId") };
  const { generation } = unwrap(await sessionStub(c.env, key).gatewayGeneration(key));
  return {
    [GATEWAY_HEADERS.session]: session.id,
    [GATEWAY_HEADERS.sessionSource]: session.source,
    [GATEWAY_HEADERS.generation]: String(generation),
  };
}

/** The plan, its response also naming the field the session came from. */
function withSessionSource(plan: ForwardPlan, session: AgentSession | undefined): ForwardPlan {
  if (session === undefined) return plan;
  plan.headers[GATEWAY_HEADERS.sessionSource] = session.source;
  return plan;
}

/**
 * The plan, its answer also counted as a gateway turn's data point (`analytics/data-points`): the
 * usage the upstream reported, the tokens the gateway sent and saved, the tier of a compaction.
 */
function countedTurn(
  c: Context<AppEnv>,
  plan: ForwardPlan,
  upstream: string,
  body: RequestBody,
): ForwardPlan {
  if (c.env.ANALYTICS === undefined) return plan;
  const started = Date.now();
  return {
    ...plan,
    answered: (answer, sent) => {
      const log = c.get("log");
      writeDataPoint(c.env, {
        kind: "gateway_turn",
        user: c.get("userId"),
        model: typeof body.model === "string" ? body.model : "",
        source: upstream,
        tokensIn: answer.usage?.inputTokens,
        tokensOut: answer.outputTokens,
        cachedTokens: answer.usage?.cacheReadTokens,
        tokensSaved:
          log.tokensBefore !== undefined && log.tokensAfter !== undefined
            ? log.tokensBefore - log.tokensAfter
            : undefined,
        tier: log.tier,
        durationMs: Date.now() - started,
      });
      return plan.answered(answer, sent);
    },
  };
}

/**
 * A Gemini method of a model: `generateContent` and `streamGenerateContent` as model requests (the
 * model, which Gemini reads from the path, put in the body for the gateway's own use),
 * `countTokens` for the context the gateway would send (`gateway/provider-endpoints`); any other
 * method is refused in Gemini's shape.
 */
async function serveGemini(
  c: Context<AppEnv>,
  route: GatewayRoute,
  body: RequestBody,
  text: string,
): Promise<Response> {
  const method = geminiMethod(c.req.param("model") ?? "");
  const upstreamPath = geminiUpstreamPath(new URL(c.req.url), route.path);
  if (method === undefined) {
    throw new ApiError(
      404,
      "not_found",
      "the gateway serves a model's `:generateContent`, `:streamGenerateContent` and `:countTokens`; use one of them after the model's name",
    );
  }
  if (method.name === "countTokens") {
    const countBody = { ...body, model: method.model };
    return serveCount(
      c,
      {
        protocol: route.protocol,
        path: upstreamPath,
        upstreamBody: (preview) => geminiCountBody(preview.body, method.model),
        answer: (tokens) => ({ totalTokens: tokens }),
      },
      countBody,
      text,
    );
  }
  const streamed = method.name === "streamGenerateContent";
  return serveModelRequest(
    c,
    route,
    { ...body, model: method.model },
    text,
    upstreamPath,
    streamed,
  );
}

/**
 * A Gemini count request for a previewed body: `contents` alone as it is; with a system instruction
 * or tools, wrapped in `generateContentRequest`, the one form of `countTokens` that carries them.
 */
function geminiCountBody(body: RequestBody, model: string): RequestBody {
  const { model: _path, ...request } = body;
  if (request.systemInstruction === undefined && request.tools === undefined) return request;
  return { generateContentRequest: { model: `models/${model}`, ...request } };
}

/** The upstream's models, passed through. */
async function serveModels(c: Context<AppEnv>, route: GatewayRoute): Promise<Response> {
  const upstream = c.get("upstream");
  const query = new URL(c.req.url).search;
  const headers = upstreamRequestHeaders(c.req.raw.headers, upstream.auth);
  headers.delete("content-type");
  const outcome = await reachUpstream(
    `${upstream.baseUrl}${route.path}${query}`,
    { method: "GET", headers },
    gatewayTimeouts(c.env).responseMs,
  );
  const text = await readUpstreamBody(outcome);
  return new Response(text, {
    status: outcome.response.status,
    headers: clientResponseHeaders(outcome.response.headers),
  });
}

export function gatewayRoutes(app: OpenAPIHono<AppEnv>): void {
  for (const route of ROUTES) {
    const spec = {
      path: `/v1/gateway/{upstream}${route.path}`,
      summary: route.summary,
      tags: ["gateway"],
      params: GatewayUpstreamParam,
      headers: GatewayHeaders,
      responses: {
        200: {
          description:
            "The upstream's answer: JSON, or server-sent events when the request streams",
          schema: route.response,
        },
      },
      errors: ERRORS,
      middleware: [gatewayAuth(route.protocol.name), rateLimit()],
      errorShape: route.protocol.errorBody,
    };
    if (route.method === "get") {
      defineRoute(app, { ...spec, method: "get" }, (c) => serveModels(c, route));
    } else if (route.method === "gemini") {
      defineRoute(
        app,
        {
          ...spec,
          method: "post",
          params: GatewayGeminiParams,
          description: `${GEMINI_DESCRIPTION} ${DESCRIPTION}`,
          body: route.request,
          middleware: [...spec.middleware, spendingGuard()],
        },
        (c, input) => serveGemini(c, route, input.body as RequestBody, input.bodyText),
      );
    } else if (route.method === "count" || route.method === "compact") {
      const count = route.method === "count";
      defineRoute(
        app,
        {
          ...spec,
          method: "post",
          description: count ? COUNT_DESCRIPTION : COMPACT_DESCRIPTION,
          body: route.request,
          // A count is free at the providers; a compaction is a model call, refused over the cap.
          ...(count ? {} : { middleware: [...spec.middleware, spendingGuard()] }),
        },
        (c, input) => {
          const body = input.body as RequestBody;
          if (!count) return serveResponsesCompact(c, route.path, body, input.bodyText);
          const endpoint = {
            protocol: route.protocol,
            path: route.path,
            upstreamBody: (preview: { body: RequestBody }) => preview.body,
            answer: (tokens: number) => ({ input_tokens: tokens }),
          };
          return serveCount(c, endpoint, body, input.bodyText);
        },
      );
    } else {
      defineRoute(
        app,
        {
          ...spec,
          method: "post",
          description: DESCRIPTION,
          body: route.request,
          middleware: [...spec.middleware, spendingGuard()],
        },
        (c, input) => serveModelRequest(c, route, input.body as RequestBody, input.bodyText),
      );
    }
  }
}
