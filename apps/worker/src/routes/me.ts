/**
 * @module routes/me
 * `DELETE /v1/me`: the caller's every session (its object's whole storage,
 * vectors included), memory (and its vectors) and list row, in one call. Only
 * the authenticated user's objects are reached (`session/session-stub`,
 * `user/user-stub`), so another user's data cannot be named, let alone
 * deleted. Sessions are the ones the user's list holds (each is listed before
 * its first answer returns); a session that is already gone counts for
 * nothing. A call cut short deletes the rest when repeated.
 */

import type { OpenAPIHono } from "@hono/zod-openapi";
import { UserDataDeleteResponse } from "../api/schemas";
import type { AppEnv } from "../http/app-env";
import { defineRoute } from "../http/route";
import { sessionStub } from "../session/session-stub";
import { userStub } from "../user/user-stub";

/** Session objects deleted at once: bounded, so a user with thousands does not open them all together. */
const PARALLEL_DELETES = 8;

/** Deletes each of `sessionIds` of `userId` (no tombstone); returns how many existed. */
async function deleteSessions(env: Env, userId: string, sessionIds: string[]): Promise<number> {
  let deleted = 0;
  for (let from = 0; from < sessionIds.length; from += PARALLEL_DELETES) {
    const results = await Promise.all(
      sessionIds
        .slice(from, from + PARALLEL_DELETES)
        .map((sessionId) =>
          sessionStub(env, { userId, sessionId }).remove({ userId, sessionId }, false),
        ),
    );
    deleted += results.filter((result) => result.ok).length;
  }
  return deleted;
}

export function meRoutes(app: OpenAPIHono<AppEnv>): void {
  defineRoute(
    app,
    {
      method: "delete",
      path: "/v1/me",
      summary: "Delete all of the caller's data",
      description:
        "Deletes every session of the caller (transcripts, compactions, tool outputs, their vectors), every memory (and its vectors) and the session list, and answers how many sessions and memories were deleted. Another user's data is never touched. Repeating the call is safe: what is already gone counts 0.",
      tags: ["account"],
      responses: {
        200: { description: "Deleted", schema: UserDataDeleteResponse },
      },
    },
    async (c) => {
      const userId = c.get("userId");
      const user = userStub(c.env, userId);
      const sessions = await deleteSessions(c.env, userId, await user.sessionIds());
      const { memories } = await user.deleteUserData();
      c.get("log").user = userId;
      return c.json({ deleted: true as const, sessions, memories }, 200);
    },
  );
}
