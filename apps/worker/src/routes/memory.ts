/**
 * @module routes/memory
 * The caller's own lists: their sessions (`GET /v1/sessions`) and their
 * long-term memory (`/v1/memory…`). Every route reaches the Durable Object of
 * the authenticated user alone (`user/user-stub`), so another user's sessions
 * and memories never appear and their ids are 404 `memory_not_found`.
 */

import type { OpenAPIHono, z } from "@hono/zod-openapi";
import { invalidQuery } from "../api/errors";
import { type RpcResult, unwrap } from "../api/rpc-result";
import {
  MemoryCreateRequest,
  MemoryDeleteResponse,
  MemoryEntry,
  MemoryIdParam,
  MemoryListQuery,
  MemoryListResponse,
  MemoryPatchRequest,
  MemorySearchQuery,
  MemorySearchResponse,
  SessionListQuery,
  SessionListResponse,
} from "../api/schemas";
import type { AppEnv } from "../http/app-env";
import { defineRoute, type RouteInputOf, type RouteSpec } from "../http/route";
import { userStub } from "../user/user-stub";

const limitsDoc =
  "A user keeps at most 500 memories (409 `memory_full`) of at most 2,000 characters each (400 `memory_too_long`); text holding a secret is refused (422 `memory_secret`).";

/**
 * Declares a route of the caller's own lists (`defineRoute`): `ask` gets the caller's user object and
 * the request, and the object's answer is sent as JSON with `status` (200 unless said).
 */
function userRoute<
  P extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(
  app: OpenAPIHono<AppEnv>,
  spec: RouteSpec<P, Q, B>,
  ask: (
    user: ReturnType<typeof userStub>,
    input: RouteInputOf<P, Q, B>,
  ) => Promise<RpcResult<object>>,
  status: 200 | 201 = 200,
): void {
  defineRoute(app, spec, async (c, input) => {
    const user = userStub(c.env, c.get("userId"));
    return c.json(unwrap(await ask(user, input)), status);
  });
}

export function memoryRoutes(app: OpenAPIHono<AppEnv>): void {
  userRoute(
    app,
    {
      method: "get",
      path: "/v1/sessions",
      summary: "The caller's sessions, newest active first",
      description:
        "Each session's object reports its figures to the user's list: at once when it is created, compacted or deleted, and at most every few seconds while messages are appended, so `lastActiveAt`, `messageCount` and `tokens` may lag a burst of appends by that much. Pages follow a keyset cursor: sessions created meanwhile do not shift later pages.",
      tags: ["sessions"],
      query: SessionListQuery,
      responses: { 200: { description: "A page of sessions", schema: SessionListResponse } },
      errors: { 400: "Bad `limit` or a `cursor` this list did not return (invalid_cursor)" },
    },
    (user, { query }) => user.sessions(query.limit ?? 20, query.cursor),
  );

  userRoute(
    app,
    {
      method: "get",
      path: "/v1/memory",
      summary: "The caller's memories, newest first",
      tags: ["memory"],
      query: MemoryListQuery,
      responses: { 200: { description: "A page of memories", schema: MemoryListResponse } },
    },
    (user, { query }) => user.listMemories(query.limit ?? 50, query.cursor),
  );

  userRoute(
    app,
    {
      method: "post",
      path: "/v1/memory",
      summary: "Add a memory",
      description: limitsDoc,
      tags: ["memory"],
      body: MemoryCreateRequest,
      responses: { 201: { description: "The new entry", schema: MemoryEntry } },
      errors: { 409: "memory_full", 422: "memory_secret" },
    },
    (user, { body }) =>
      user.createMemory({
        text: body.text,
        kind: body.kind,
        ...(body.sourceSession !== undefined ? { sourceSession: body.sourceSession } : {}),
        ...(body.sourceSeq !== undefined ? { sourceSeq: body.sourceSeq } : {}),
      }),
    201,
  );

  // Before `/v1/memory/{memoryId}`, which would take `search` for an id.
  userRoute(
    app,
    {
      method: "get",
      path: "/v1/memory/search",
      summary: "Search the caller's memories",
      description:
        "Full-text search (FTS5, BM25) for entries holding every word of `q`; the words are quoted, so FTS5 operators in `q` are searched as words. With a Vectorize index and Workers AI configured, entries are also ranked by embedding similarity and the two rankings fused.",
      tags: ["memory"],
      query: MemorySearchQuery,
      responses: { 200: { description: "Best first", schema: MemorySearchResponse } },
      errors: { 400: "Empty `q` (invalid_query) or a bad `limit`" },
    },
    (user, { query }) => {
      if (query.q.trim() === "") {
        throw invalidQuery("`q` is empty: send the words to search for");
      }
      return user.searchMemories(query.q, query.limit ?? 10);
    },
  );

  userRoute(
    app,
    {
      method: "get",
      path: "/v1/memory/{memoryId}",
      summary: "One memory",
      tags: ["memory"],
      params: MemoryIdParam,
      responses: { 200: { description: "The entry", schema: MemoryEntry } },
    },
    (user, { params }) => user.getMemory(params.memoryId),
  );

  userRoute(
    app,
    {
      method: "patch",
      path: "/v1/memory/{memoryId}",
      summary: "Change a memory's text or kind",
      description: limitsDoc,
      tags: ["memory"],
      params: MemoryIdParam,
      body: MemoryPatchRequest,
      responses: { 200: { description: "The changed entry", schema: MemoryEntry } },
      errors: { 422: "memory_secret" },
    },
    (user, { params, body }) =>
      user.updateMemory(params.memoryId, {
        ...(body.text !== undefined ? { text: body.text } : {}),
        ...(body.kind !== undefined ? { kind: body.kind } : {}),
      }),
  );

  userRoute(
    app,
    {
      method: "delete",
      path: "/v1/memory/{memoryId}",
      summary: "Delete a memory",
      tags: ["memory"],
      params: MemoryIdParam,
      responses: { 200: { description: "Deleted", schema: MemoryDeleteResponse } },
    },
    (user, { params }) => user.deleteMemory(params.memoryId),
  );
}
