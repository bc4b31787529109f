/**
 * `DELETE /v1/me`: the caller's every session, memory and vector is deleted in one call, and the
 * answer counts them; another user's data is left whole.
 */

import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { userStub } from "../../src/user/user-stub";
import { call, freshSession, stubFor, waitFor } from "../support/helpers";
import { FakeAi, FakeIndex } from "../support/semantic-fakes";
import { addMemory, freshUser, userIdOf } from "../support/user-helpers";

/** A user with two sessions and two memories, all of them embedded into `index`. */
async function populatedUser(index: FakeIndex) {
  const token = await freshUser("me");
  const fakes = { AI: new FakeAi(), VECTORIZE: index };
  const sessions = [freshSession("me"), freshSession("me")];
  await runInDurableObject(userStub(env, userIdOf(token)), (instance) => {
    Object.assign(instance, { env: { ...env, ...fakes } });
  });
  for (const id of sessions) {
    await runInDurableObject(stubFor(userIdOf(token), id), (instance) => {
      Object.assign(instance, { env: { ...env, ...fakes } });
    });
    const appended = await call("POST", `/v1/sessions/${id}/messages`, {
      as: token,
      body: { messages: [{ role: "user", content: "my car broke down" }] },
    });
    expect(appended.status).toBe(200);
  }
  await addMemory(token, "Prefers espresso");
  await addMemory(token, "Deploys with wrangler");
  return { token, sessions };
}

describe("DELETE /v1/me", () => {
  it("deletes the caller's sessions, memories and vectors, and leaves another user's whole", async () => {
    const index = new FakeIndex();
    const me = await populatedUser(index);
    const other = await populatedUser(index);
    await waitFor(() => index.vectors.size === 8, "the embeddings");

    const reply = await call("DELETE", "/v1/me", { as: me.token });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ deleted: true, sessions: 2, memories: 2 });

    for (const id of me.sessions) {
      expect((await call("GET", `/v1/sessions/${id}`, { as: me.token })).status).toBe(404);
    }
    const mine = await call<{ sessions: unknown[] }>("GET", "/v1/sessions", { as: me.token });
    expect(mine.body.sessions).toEqual([]);
    const memories = await call<{ memories: unknown[] }>("GET", "/v1/memory", { as: me.token });
    expect(memories.body.memories).toEqual([]);
    await waitFor(() => index.vectors.size === 4, "the caller's vectors to go");

    // The other user's data is whole: sessions, list, memories and vectors.
    for (const id of other.sessions) {
      expect((await call("GET", `/v1/sessions/${id}`, { as: other.token })).status).toBe(200);
    }
    const theirs = await call<{ sessions: unknown[] }>("GET", "/v1/sessions", { as: other.token });
    expect(theirs.body.sessions).toHaveLength(2);
    const theirMemories = await call<{ memories: unknown[] }>("GET", "/v1/memory", {
      as: other.token,
    });
    expect(theirMemories.body.memories).toHaveLength(2);
    expect(index.vectors.size).toBe(4);

    // Deleting again finds nothing; the caller can start over.
    expect((await call("DELETE", "/v1/me", { as: me.token })).body).toEqual({
      deleted: true,
      sessions: 0,
      memories: 0,
    });
  });

  it("is in the OpenAPI document and needs authentication", async () => {
    const doc = await call<{ paths: Record<string, Record<string, unknown>> }>(
      "GET",
      "/openapi.json",
    );
    expect(doc.body.paths["/v1/me"]?.delete).toBeDefined();
    expect((await call("DELETE", "/v1/me", { as: null })).status).toBe(401);
  });
});
