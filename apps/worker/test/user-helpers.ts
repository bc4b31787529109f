/**
 * @module test/user-helpers
 * What the tests of the user's object share: a fresh user per test (a signed
 * JWT with a new `sub`, so no two tests share a user's memory or session list)
 * and calls to the memory routes as that user.
 */

import type { MemoryEntryBody } from "../src/api/schemas";
import { call } from "./helpers";
import { signJwt } from "./jwt";

/** A bearer token for a user no other test uses. */
export async function freshUser(prefix = "user"): Promise<string> {
  return signJwt({ sub: `${prefix}-${crypto.randomUUID()}` });
}

export async function addMemory(as: string, text: string, kind = "fact"): Promise<MemoryEntryBody> {
  const reply = await call<MemoryEntryBody>("POST", "/v1/memory", { as, body: { text, kind } });
  if (reply.status !== 201)
    throw new Error(`POST /v1/memory: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}
