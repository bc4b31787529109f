/**
 * @module routes/sessions
 * The session routes. Each request is addressed to the Durable Object named
 * after the authenticated user and the session id together, so one user can
 * never reach another's session: a foreign session simply does not exist
 * (404). Bodies are validated and messages converted here, in the stateless
 * Worker, so the object only stores and compacts.
 */

import type { MessageFormat } from "@condense/core";
import type { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { canonicalMessages } from "../api/formats";
import { idempotencyInput } from "../api/idempotency-key";
import { unwrap } from "../api/rpc-result";
import type { EventsResponseBody } from "../api/schemas";
import {
  AppendRequest,
  AppendResponse,
  CompactionsResponse,
  ContextQuery,
  ContextResponse,
  DeleteResponse,
  EventsQuery,
  EventsResponse,
  ManualCompactRequest,
  ManualCompactResponse,
  OverflowRequest,
  OverflowResponse,
  SearchQuery,
  SearchResponse,
  SessionIdParam,
  SessionStatus,
  SettingsPatch,
  SideRequestParams,
  SideRequestResponse,
  SideRequestsQuery,
  SideRequestsResponse,
  ToolOutputParams,
  ToolOutputQuery,
  ToolOutputResponse,
  TranscriptQuery,
  TranscriptResponse,
} from "../api/schemas";
import type { AppEnv } from "../http/app-env";
import { defineRoute, type RouteInputOf, type RouteSpec } from "../http/route";
import type { ContextData, OverflowData } from "../session/context/context-data";
import { renderContext } from "../session/context/context-formats";
import { matchExpressions } from "../session/recall/search";
import type { TranscriptPage } from "../session/recall/transcript-page";
import { type SessionStub, sessionStub } from "../session/session-stub";
import type { SessionCall } from "../session/store/session-record";
import { settingsUpdate } from "../session/store/settings-patch";
import type { SideRequestRecord } from "../session/turns/side-requests";

const TAGS = ["sessions"];

function sessionCall(c: Context<AppEnv>, sessionId: string): SessionCall {
  c.get("log").session = sessionId;
  return { userId: c.get("userId"), sessionId, requestId: c.get("requestId") };
}

/** What a session route's handler works with: the call, and the session's Durable Object. */
interface SessionTarget {
  call: SessionCall;
  stub: SessionStub;
}

/**
 * Declares a route of the session of the path's `{id}` (`defineRoute`, tagged `sessions`): `answer`
 * gets the call and the session's object, and what it returns is the 200 JSON body.
 */
function sessionRoute<
  P extends z.ZodType<{ id: string }>,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(
  app: OpenAPIHono<AppEnv>,
  spec: Omit<RouteSpec<P, Q, B>, "tags">,
  answer: (
    session: SessionTarget,
    input: RouteInputOf<P, Q, B>,
    c: Context<AppEnv>,
  ) => Promise<object>,
): void {
  defineRoute(app, { ...spec, tags: TAGS }, async (c, input) => {
    const call = sessionCall(c, input.params.id);
    return c.json(await answer({ call, stub: sessionStub(c.env, call) }, input, c), 200);
  });
}

/** The request's `Idempotency-Key`, with the hash of the body as sent. */
function idempotency(c: Context<AppEnv>, bodyText: string) {
  return idempotencyInput(c.req.header("Idempotency-Key"), bodyText);
}

const idempotencyHeaderDoc =
  "Send `Idempotency-Key` to make retries safe: the same key with the same body returns the first answer; with a different body, 409 `idempotency_conflict`. Keys are kept 24 hours per session.";

/** The context body in the requested format (with `provider_data` in the openai format, if asked). */
function contextBody(
  data: ContextData,
  requested: MessageFormat | undefined,
  providerData = false,
) {
  const format = requested ?? data.defaultFormat;
  const rendered = renderContext(data, format, { providerData });
  return {
    sessionId: data.sessionId,
    format,
    messages: rendered.messages,
    ...(rendered.system !== undefined ? { system: rendered.system } : {}),
    messageCount: rendered.messages.length,
    tokens: data.tokens,
    contextWindow: data.contextWindow,
    budget: data.budget,
    warningLevel: data.warningLevel,
    summary: data.summary,
    coveredSeq: data.coveredSeq,
    lastSeq: data.lastSeq,
    compaction: data.compaction,
    ...(data.memory !== undefined ? { memory: data.memory } : {}),
  };
}

export function sessionRoutes(app: OpenAPIHono<AppEnv>): void {
  sessionRoute(
    app,
    {
      method: "post",
      path: "/v1/sessions/{id}/messages",
      idempotent: true,
      summary: "Append messages (the first append creates the session)",
      description: `Stores the messages with their token counts. When the context crosses the threshold a compaction is scheduled in the background and the answer comes at once. ${idempotencyHeaderDoc}`,
      params: SessionIdParam,
      body: AppendRequest,
      responses: { 200: { description: "Appended", schema: AppendResponse } },
      errors: { 409: "Idempotency-Key reused with a different body" },
    },
    async ({ call, stub }, { body, bodyText }, c) => {
      const idem = await idempotency(c, bodyText);
      const messages = canonicalMessages(body.messages, body.format ?? "openai", body.system);
      const result = await stub.append(call, {
        messages,
        ...(body.model !== undefined ? { model: body.model } : {}),
        ...(body.usage !== undefined ? { usage: body.usage } : {}),
        ...(idem !== undefined ? { idempotency: idem } : {}),
      });
      return unwrap(result);
    },
  );

  sessionRoute(
    app,
    {
      method: "get",
      path: "/v1/sessions/{id}/context",
      summary: "The messages to send to the model now",
      description:
        "Head, pinned messages, summary and tail. Returns the committed view at once; only a context over window − reserve waits for (or runs) a compaction. Messages are served as appended, less what no provider accepts: empty turns are left out, a tool call that a later message interrupted is answered by a placeholder result right after it, and a result that came late is placed with its call (the transcript keeps every message as appended). While the last assistant message's tool calls await their results, the context ends with those calls (append the results before sending it), and no compaction folds such calls in, so their real results always pair with them.",
      params: SessionIdParam,
      query: ContextQuery,
      responses: { 200: { description: "The context", schema: ContextResponse } },
      errors: {
        409: "The context holds OpenAI compaction items and needs format=responses, or parts the format cannot carry (audio for anthropic and responses; files other than PDF, text and images for anthropic)",
      },
    },
    async ({ call, stub }, { query }) => {
      const data = unwrap<ContextData>(
        await stub.context(call, query.format, query.peek === "true"),
      );
      return contextBody(data, query.format, query.providerData === "true");
    },
  );

  sessionRoute(
    app,
    {
      method: "post",
      path: "/v1/sessions/{id}/compact",
      idempotent: true,
      summary: "Compact now",
      description: `Runs a compaction even below the threshold, with optional instructions and focus for the summarizer. ${idempotencyHeaderDoc}`,
      params: SessionIdParam,
      body: ManualCompactRequest,
      bodyOptional: true,
      responses: {
        200: { description: "The compaction's outcome", schema: ManualCompactResponse },
      },
      errors: { 409: "Idempotency-Key reused with a different body" },
    },
    async ({ call, stub }, { body, bodyText }, c) => {
      const idem = await idempotency(c, bodyText);
      const result = await stub.compactNow(call, {
        ...(body.instructions !== undefined ? { instructions: body.instructions } : {}),
        ...(body.focus !== undefined ? { focus: body.focus } : {}),
        ...(idem !== undefined ? { idempotency: idem } : {}),
      });
      const value = unwrap(result);
      const log = c.get("log");
      if (value.event) {
        log.tier = value.event.tier;
        log.tokensBefore = value.event.tokensBefore;
        log.tokensAfter = value.event.tokensAfter;
      }
      return value;
    },
  );

  sessionRoute(
    app,
    {
      method: "post",
      path: "/v1/sessions/{id}/overflow",
      summary: "Report a provider's context-overflow error",
      description:
        "If the error is a context overflow, compacts until the reserve holds (at most 3 passes) and returns the new context; otherwise 422 `not_an_overflow`. A window the error states below the session's is kept for the session's model from then on (`learnedContextWindow` in the status); the token count it states calibrates the estimate of non-OpenAI models against the context last served.",
      params: SessionIdParam,
      body: OverflowRequest,
      responses: { 200: { description: "The compacted context", schema: OverflowResponse } },
      errors: {
        409: "The context holds parts the format cannot carry, or OpenAI compaction items (see GET /context)",
        422: "The error is not a context overflow",
      },
    },
    async ({ call, stub }, { body }) => {
      const data = unwrap<OverflowData>(
        await stub.overflow(call, {
          error: body.error,
          ...(body.format !== undefined ? { format: body.format } : {}),
        }),
      );
      const context = contextBody(data, body.format, body.providerData === true);
      return { ...context, passes: data.passes, reportedTokens: data.reportedTokens };
    },
  );

  sessionRoute(
    app,
    {
      method: "get",
      path: "/v1/sessions/{id}",
      summary: "Session status",
      params: SessionIdParam,
      responses: {
        200: {
          description: "Counts, tokens, compactions, cooldown and settings",
          schema: SessionStatus,
        },
      },
    },
    async ({ call, stub }) => unwrap(await stub.status(call)),
  );

  sessionRoute(
    app,
    {
      method: "patch",
      path: "/v1/sessions/{id}",
      summary: "Change session settings (creates the session if it does not exist)",
      description:
        "Fields left out keep their value; `null` restores the default. A PATCH before the first append creates the session with these settings, so an app can configure it (a `contextWindow` for a model the table does not know) before using it.",
      params: SessionIdParam,
      body: SettingsPatch,
      responses: {
        200: { description: "The session's status with the new settings", schema: SessionStatus },
      },
    },
    async ({ call, stub }, { body }) =>
      unwrap(await stub.updateSettings(call, settingsUpdate(body))),
  );

  sessionRoute(
    app,
    {
      method: "delete",
      path: "/v1/sessions/{id}",
      summary: "Delete the session and everything stored for it",
      description:
        "A retry within 24 hours (whose first answer was lost) gets the first answer again; a session that never existed, or was deleted longer ago, is 404.",
      params: SessionIdParam,
      responses: { 200: { description: "Deleted", schema: DeleteResponse } },
    },
    async ({ call, stub }) => unwrap(await stub.remove(call)),
  );

  sessionRoute(
    app,
    {
      method: "get",
      path: "/v1/sessions/{id}/compactions",
      summary: "Compaction history",
      params: SessionIdParam,
      responses: {
        200: {
          description: "Every committed compaction, oldest first",
          schema: CompactionsResponse,
        },
      },
    },
    async ({ call, stub }) => {
      return { sessionId: call.sessionId, ...unwrap(await stub.compactions(call)) };
    },
  );

  sessionRoute(
    app,
    {
      method: "get",
      path: "/v1/sessions/{id}/tool-outputs/{toolCallId}",
      summary: "A tool output, exactly as appended",
      description:
        "Compaction replaces old tool outputs by placeholders that name their tool_call_id and seq; this returns the original. An id that several calls used (a server that numbers calls `call_0`… every turn) names the latest output by default; `seq` picks an earlier one, and `previousSeq`/`nextSeq` lead to the others.",
      params: ToolOutputParams,
      query: ToolOutputQuery,
      responses: { 200: { description: "The tool output", schema: ToolOutputResponse } },
    },
    async ({ call, stub }, { params, query }) =>
      unwrap(await stub.toolOutput(call, params.toolCallId, query.seq)),
  );

  sessionRoute(
    app,
    {
      method: "get",
      path: "/v1/sessions/{id}/search",
      summary: "Search the session's whole past (recall)",
      description:
        "Full-text search (SQLite FTS5, BM25) over every message of the transcript: user and assistant text, tool outputs, tool-call names, arguments and ids, whether or not a compaction summarized or pruned them. Best matches first, each with a snippet, its seq and tool-call id (the whole tool output is at /tool-outputs/{toolCallId}?seq=), and whether it is still in the context. `q` is plain text: FTS5 operators in it are searched as words. Sessions from before search existed are indexed on first use: `indexing.complete` is false until then.",
      params: SessionIdParam,
      query: SearchQuery,
      responses: { 200: { description: "The best matches", schema: SearchResponse } },
      errors: { 400: "`invalid_query`: `q` is empty or has no word to search for" },
    },
    async ({ call, stub }, { query }) => {
      const q = query.q ?? "";
      // Refused here, before the object is reached: a bad query is the same 400 for any session.
      matchExpressions(q);
      const result = await stub.search(call, {
        q,
        limit: query.limit ?? 10,
        ...(query.role !== undefined ? { role: query.role } : {}),
        ...(query.after !== undefined ? { after: query.after } : {}),
      });
      return unwrap(result);
    },
  );

  sessionRoute(
    app,
    {
      method: "get",
      path: "/v1/sessions/{id}/transcript",
      summary: "The original transcript, paginated",
      params: SessionIdParam,
      query: TranscriptQuery,
      responses: { 200: { description: "A page of the transcript", schema: TranscriptResponse } },
    },
    async ({ call, stub }, { query }) => {
      const page = unwrap<TranscriptPage>(
        await stub.transcript(call, query.after ?? 0, query.limit ?? 100, query.generation),
      );
      return { sessionId: call.sessionId, ...page };
    },
  );

  sessionRoute(
    app,
    {
      method: "get",
      path: "/v1/sessions/{id}/side-requests",
      summary: "The gateway requests the session answered without taking them in, paginated",
      description:
        "A gateway request the session does not take into its transcript (a side request: another conversation under the same session header, such as a title or a sub-agent; or a history it cannot take) is forwarded statelessly, and its response says so (`X-Condense-Stateless`, `X-Condense-Side-Request`). It is kept here with its answer, oldest first: the latest 200, within 64 MiB.",
      params: SessionIdParam,
      query: SideRequestsQuery,
      responses: { 200: { description: "A page of side requests", schema: SideRequestsResponse } },
    },
    async ({ call, stub }, { query }) => ({
      sessionId: call.sessionId,
      ...unwrap(await stub.sideRequests(call, query.after ?? 0, query.limit ?? 50)),
    }),
  );

  sessionRoute(
    app,
    {
      method: "get",
      path: "/v1/sessions/{id}/side-requests/{sideRequestId}",
      summary: "One side request, with its history and answer",
      description:
        "The history the request sent and the model's answer, canonical, as `X-Condense-Side-Request` named it.",
      params: SideRequestParams,
      responses: { 200: { description: "The side request", schema: SideRequestResponse } },
    },
    async ({ call, stub }, { params }) => ({
      sessionId: call.sessionId,
      ...unwrap<SideRequestRecord>(await stub.sideRequest(call, params.sideRequestId)),
    }),
  );

  sessionRoute(
    app,
    {
      method: "get",
      path: "/v1/sessions/{id}/events",
      summary: "The session's compaction events, paginated",
      description:
        "Every compaction's events, oldest first (the latest 1,000 are kept): `compaction.started`, then `compaction.committed` (tier, tokens before and after, the bill), `compaction.unchanged` or `compaction.failed` (with `fallback: true`, the deterministic tier runs next and its outcome follows). With the session's `webhookUrl` set, each event is also POSTed there as it happens, signed with its `webhookSecret` (`X-Condense-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, \"<t>.<body>\")>`, `X-Condense-Event`, `X-Condense-Event-Id`), at least once: a delivery without a 2xx within 10 s is retried with backoff (10 s, 1 min, 5 min, 30 min, 1 h, 2 h, 6 h), then marked failed (`webhook` in the status). Poll with `after` = the last id seen.",
      params: SessionIdParam,
      query: EventsQuery,
      responses: { 200: { description: "A page of events", schema: EventsResponse } },
    },
    async ({ call, stub }, { query }) => ({
      sessionId: call.sessionId,
      ...unwrap<Omit<EventsResponseBody, "sessionId">>(
        await stub.events(call, query.after ?? 0, query.limit ?? 100),
      ),
    }),
  );
}
