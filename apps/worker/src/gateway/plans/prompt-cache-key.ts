/**
 * @module gateway/plans/prompt-cache-key
 * OpenAI's `prompt_cache_key` (issue 32): OpenAI routes requests with the same key and prefix to the
 * same cache, so a session's turns keep reading their prefix. The key the client sent is kept as it
 * is; without one, a request whose body the gateway rewrites (the session's context in place of the
 * history) gets one from the session: a digest of the user and the session, never their ids (the
 * provider sees it). Only then: a request forwarded byte for byte stays untouched, and the first
 * rewritten request busts the cache anyway (its prefix changed), so the key costs no extra miss.
 * Only for OpenAI's models (the catalog's provider): other Chat Completions upstreams may refuse a
 * field they do not know.
 */

import { modelPricing } from "@condense/core";
import type { SessionCall } from "../../session/store/session-record";
import type { GatewayProtocol, RequestBody } from "../protocols/protocol";

/** The session's key: `condense-` and 32 hex digits of SHA-256 over the user and the session. */
export async function sessionCacheKey(key: Pick<SessionCall, "userId" | "sessionId">) {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(`${key.userId}\u0000${key.sessionId}`),
  );
  const hex = [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0"));
  return `condense-${hex.join("").slice(0, 32)}`;
}

/** Whether a rewritten request of `protocol` for `model` takes a key from the session. */
export function takesSessionCacheKey(
  protocol: GatewayProtocol,
  body: RequestBody,
  model: string | undefined,
): boolean {
  return (
    (protocol.name === "chat" || protocol.name === "responses") &&
    body.prompt_cache_key === undefined &&
    model !== undefined &&
    modelPricing(model).provider === "openai"
  );
}
