/**
 * @module test/support/user-helpers
 * What the tests of the user's object share: a fresh user per test (a signed
 * JWT with a new `sub`, so no two tests share a user's memory or session list)
 * and calls to the memory routes as that user.
 */

import type { MemoryEntryBody } from "../../src/api/schemas";
import { jwtUserId } from "../../src/http/jwt";
import { call } from "./helpers";
import { signJwt } from "./jwt";

/** A bearer token for a user no other test uses. */
export async function freshUser(prefix = "user"): Promise<string> {
  return signJwt({ sub: `${prefix}-${crypto.randomUUID()}` });
}

/** The user id the Worker gives the bearer of `token` (a JWT of `freshUser`'s). */
export function userIdOf(token: string): string {
  const payload = (token.split(".")[1] ?? "").replace(/-/g, "+").replace(/_/g, "/");
  const { sub, iss } = JSON.parse(atob(payload)) as { sub: string; iss?: string };
  return jwtUserId({ issuer: iss, subject: sub });
}

export async function addMemory(as: string, text: string, kind = "fact"): Promise<MemoryEntryBody> {
  const reply = await call<MemoryEntryBody>("POST", "/v1/memory", { as, body: { text, kind } });
  if (reply.status !== 201)
    throw new Error(`POST /v1/memory: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}
