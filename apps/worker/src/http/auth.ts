/**
 * @module http/auth
 * Bearer authentication for `/v1`. Two sources of users, either or both:
 * `API_KEYS` (`userId:token` pairs, comma- or newline-separated, compared in
 * constant time; the user id is the pair's) and JWTs (`http/jwt`: HS256 with
 * `JWT_SECRET`, or a key of the set at `JWT_JWKS_URL`; the user id is the
 * token's `sub` namespaced by kind and issuer, so it never meets an API-key
 * user's). With neither configured every request is refused with 503
 * `auth_not_configured`: a deployment fails closed, never open.
 */

import type { MiddlewareHandler } from "hono";
import { ApiError } from "../api/errors";
import type { AppEnv } from "./app-env";
import { jwtSettings, jwtUserId, verifyJwt } from "./jwt";

export interface ApiKeyEntry {
  userId: string;
  token: string;
}

/** Parses `API_KEYS`; entries without a user, a colon or a token are skipped. */
export function parseApiKeys(raw: string | undefined): ApiKeyEntry[] {
  if (raw === undefined) return [];
  const entries: ApiKeyEntry[] = [];
  for (const item of raw.split(/[,\n]/)) {
    const trimmed = item.trim();
    const colon = trimmed.indexOf(":");
    if (colon <= 0) continue;
    const userId = trimmed.slice(0, colon).trim();
    const token = trimmed.slice(colon + 1).trim();
    if (userId !== "" && token !== "") entries.push({ userId, token });
  }
  return entries;
}

const encoder = new TextEncoder();

async function sha256(text: string): Promise<ArrayBuffer> {
  return crypto.subtle.digest("SHA-256", encoder.encode(text));
}

/** Equal digests compared without an early exit, so timing tells nothing about the token. */
function digestsEqual(a: ArrayBuffer, b: ArrayBuffer): boolean {
  const x = new Uint8Array(a);
  const y = new Uint8Array(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < x.length; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * The digests of the configured keys, made once per isolate (per `API_KEYS` value): every request
 * hashed every configured key again (issue 29).
 */
const keyDigests = new WeakMap<ApiKeyEntry, ArrayBuffer>();

async function keyDigest(entry: ApiKeyEntry): Promise<ArrayBuffer> {
  let digest = keyDigests.get(entry);
  if (digest === undefined) {
    digest = await sha256(entry.token);
    keyDigests.set(entry, digest);
  }
  return digest;
}

/** The user whose API key is `token`, comparing against every entry. */
export async function userForApiKey(
  entries: ApiKeyEntry[],
  token: string,
): Promise<string | undefined> {
  const presented = await sha256(token);
  let match: string | undefined;
  for (const entry of entries) {
    // Every entry is compared, so the position of a match is not observable.
    const equal = digestsEqual(presented, await keyDigest(entry));
    if (equal && match === undefined) match = entry.userId;
  }
  return match;
}

/** `API_KEYS` parsed once per isolate for each value it has had (a test may change it). */
const parsedKeys = new Map<string, ApiKeyEntry[]>();

function configuredKeys(raw: string | undefined): ApiKeyEntry[] {
  if (raw === undefined) return [];
  let entries = parsedKeys.get(raw);
  if (entries === undefined) {
    entries = parseApiKeys(raw);
    if (parsedKeys.size >= 16) parsedKeys.clear();
    parsedKeys.set(raw, entries);
  }
  return entries;
}

function unauthorized(message: string): ApiError {
  return new ApiError(401, "unauthorized", message, null, {
    "WWW-Authenticate": 'Bearer realm="condense"',
  });
}

/** Resolves the bearer token of a request to a user, or throws the right `ApiError`. */
export async function authenticate(env: Env, authorization: string | undefined): Promise<string> {
  const keys = configuredKeys(env.API_KEYS);
  const jwt = jwtSettings(env);
  if (keys.length === 0 && jwt === undefined) {
    throw new ApiError(
      503,
      "auth_not_configured",
      "this deployment has no API_KEYS, JWT_SECRET or JWT_JWKS_URL, so it refuses every request; set one of them",
    );
  }
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const token = match?.[1];
  if (token === undefined) {
    throw unauthorized("send `Authorization: Bearer <token>` with an API key or a JWT");
  }
  const fromKey = keys.length > 0 ? await userForApiKey(keys, token) : undefined;
  if (fromKey !== undefined) return fromKey;
  if (jwt !== undefined && token.split(".").length === 3) {
    const verdict = await verifyJwt(token, jwt);
    if (verdict.ok) return jwtUserId(verdict.identity);
    throw unauthorized(`invalid bearer token: ${verdict.reason}`);
  }
  throw unauthorized("invalid bearer token: it matches no API key");
}

export function requireAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const userId = await authenticate(c.env, c.req.header("Authorization"));
    c.set("userId", userId);
    c.get("log").user = userId;
    await next();
  };
}
