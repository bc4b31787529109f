/**
 * Identity through the API: JWTs from an identity provider's key set
 * (`JWT_JWKS_URL`, with `JWT_ISSUER` and `JWT_AUDIENCE`), their refusals as
 * 401 `unauthorized`, and users that never collide across credential kinds
 * while API-key users keep the objects (and so the sessions) they had.
 */

import { env } from "cloudflare:test";
import { SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { unwrap } from "../../src/api/rpc-result";
import type { ErrorResponseBody, SessionListResponseBody } from "../../src/api/schemas";
import { call, conversation, freshSession } from "../support/helpers";
import { providerKey, serveJwks, signWith } from "../support/jwks";
import { signJwt } from "../support/jwt";

const ISSUER = "https://tenant.idp.test/";
const AUDIENCE = "https://condense.test/api";

function b64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

describe("JWTs from JWT_JWKS_URL", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  async function provider() {
    const key = await providerKey("RS256", "key-1");
    const jwks = serveJwks(() => [key.jwk]);
    const deployment: Partial<Env> = {
      JWT_JWKS_URL: jwks.url,
      JWT_ISSUER: ISSUER,
      JWT_AUDIENCE: AUDIENCE,
      // Only the key set: no shared secret.
      JWT_SECRET: undefined,
    };
    const as = (token: string) => ({ Authorization: `Bearer ${token}` });
    return { key, jwks, deployment, as };
  }

  it("accepts a provider's token and keeps its user's sessions apart", async () => {
    const { key, deployment, as } = await provider();
    const exp = Math.floor(Date.now() / 1000) + 600;
    const token = await signWith(key, { sub: "auth0|42", iss: ISSUER, aud: AUDIENCE, exp });
    const id = freshSession();
    const created = await call("POST", `/v1/sessions/${id}/messages`, {
      env: deployment,
      headers: as(token),
      body: { messages: conversation(0) },
    });
    expect(created.status).toBe(200);
    const again = await call("GET", `/v1/sessions/${id}`, { env: deployment, headers: as(token) });
    expect(again.status).toBe(200);
    const other = await signWith(key, { sub: "auth0|43", iss: ISSUER, aud: AUDIENCE, exp });
    expect(
      (await call("GET", `/v1/sessions/${id}`, { env: deployment, headers: as(other) })).status,
    ).toBe(404);
  });

  it("refuses a wrong iss or aud, an unknown kid, alg none and an HS256 token keyed with the public key", async () => {
    const { key, deployment, as } = await provider();
    const claims = { sub: "auth0|42", iss: ISSUER, aud: AUDIENCE };
    const publicJwk = JSON.stringify(key.jwk);
    const refused = {
      "wrong iss": await signWith(key, { ...claims, iss: "https://evil.test/" }),
      "wrong aud": await signWith(key, { ...claims, aud: "another-api" }),
      "unknown kid": await signWith(key, claims, "key-2"),
      expired: await signWith(key, { ...claims, exp: Math.floor(Date.now() / 1000) - 60 }),
      "alg none": `${b64url({ alg: "none", kid: "key-1" })}.${b64url(claims)}.`,
      "algorithm confusion": await new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256", kid: "key-1" })
        .sign(new TextEncoder().encode(publicJwk)),
      "bad signature": `${(await signWith(key, claims)).split(".").slice(0, 2).join(".")}.${b64url("x")}`,
    };
    for (const [what, token] of Object.entries(refused)) {
      const reply = await call<ErrorResponseBody>("GET", "/v1/sessions", {
        env: deployment,
        headers: as(token),
      });
      expect({ what, status: reply.status }).toEqual({ what, status: 401 });
      expect(reply.body.error.code).toBe("unauthorized");
      expect(reply.headers.get("WWW-Authenticate")).toContain("Bearer");
    }
  });

  it("counts as configured authentication on its own", async () => {
    const { key, deployment, as } = await provider();
    const token = await signWith(key, { sub: "u", iss: ISSUER, aud: AUDIENCE });
    const reply = await call("GET", "/v1/sessions", {
      env: { ...deployment, API_KEYS: undefined },
      headers: as(token),
    });
    expect(reply.status).toBe(200);
  });
});

describe("users across credential kinds", () => {
  it("never lets a JWT whose sub spells an API-key user reach that user's sessions", async () => {
    const id = freshSession();
    const created = await call("POST", `/v1/sessions/${id}/messages`, {
      as: "alice",
      body: { messages: conversation(0) },
    });
    expect(created.status).toBe(200);
    const impostor = { Authorization: `Bearer ${await signJwt({ sub: "alice" })}` };
    expect((await call("GET", `/v1/sessions/${id}`, { headers: impostor })).status).toBe(404);
    const list = await call<SessionListResponseBody>("GET", "/v1/sessions?limit=100", {
      headers: impostor,
    });
    expect(list.body.sessions.map((session) => session.id)).not.toContain(id);
  });

  it("keeps an API-key user's objects where they were before JWT users were namespaced", async () => {
    const id = freshSession();
    await call("POST", `/v1/sessions/${id}/messages`, {
      as: "alice",
      body: { messages: conversation(0) },
    });
    // The names as they were spelled before identities had kinds: a session's object is named by
    // the JSON pair [user, session] and the user's object by the bare user id.
    const session = env.SESSIONS.get(env.SESSIONS.idFromName(JSON.stringify(["alice", id])));
    // An unknown session would answer `{ ok: false, error: not_found }`.
    expect(await session.status({ userId: "alice", sessionId: id })).toMatchObject({ ok: true });
    const user = env.USERS.get(env.USERS.idFromName("alice"));
    const listed = unwrap(await user.sessions(100));
    expect(listed.sessions.map((entry) => entry.id)).toContain(id);
  });
});
