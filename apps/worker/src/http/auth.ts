/**
 * @module http/auth
 * Bearer authentication for `/v1`. Two sources of users, either or both:
 * `API_KEYS` (`userId:token` pairs, comma- or newline-separated, compared in
 * constant time) and `JWT_SECRET` (HS256 JWTs whose `sub` is the user, `exp`
 * and `nbf` honoured). With neither configured every request is refused with
 * 503 `auth_not_configured`: a deployment fails closed, never open.
 */

import type { MiddlewareHandler } from "hono";
import { ApiError } from "../api/errors";
import type { AppEnv } from "./app-env";

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

/** The user whose API key is `token`, comparing against every entry. */
export async function userForApiKey(
  entries: ApiKeyEntry[],
  token: string,
): Promise<string | undefined> {
  const presented = await sha256(token);
  let match: string | undefined;
  for (const entry of entries) {
    // Every entry is hashed and compared, so the position of a match is not observable.
    const equal = digestsEqual(presented, await sha256(entry.token));
    if (equal && match === undefined) match = entry.userId;
  }
  return match;
}

function base64UrlDecode(segment: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(segment)) return undefined;
  const base64 = segment.replace(/-/g, "+").replace(/_/g, "/");
  const padded = base64 + "=".repeat((4 - (base64.length % 4)) % 4);
  try {
    const binary = atob(padded);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return undefined;
  }
}

function decodeJsonSegment(segment: string): Record<string, unknown> | undefined {
  const bytes = base64UrlDecode(segment);
  if (bytes === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Clock skew tolerated on `exp` and `nbf`, in seconds. */
const LEEWAY_SECONDS = 30;

/**
 * The `sub` of a valid HS256 JWT, or a reason it is not valid. Only HS256 is
 * accepted (never `none`), the signature is checked by WebCrypto, and
 * `exp`/`nbf` (seconds since the epoch) are honoured.
 */
export async function verifyJwt(
  token: string,
  secret: string,
  nowMs: number = Date.now(),
): Promise<{ ok: true; sub: string } | { ok: false; reason: string }> {
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, reason: "not a JWT" };
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = decodeJsonSegment(headerPart);
  if (header === undefined || header.alg !== "HS256") {
    return { ok: false, reason: "JWT header must say alg HS256" };
  }
  const signature = base64UrlDecode(signaturePart);
  if (signature === undefined) return { ok: false, reason: "JWT signature is not base64url" };
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["verify"],
  );
  const valid = await crypto.subtle.verify(
    "HMAC",
    key,
    signature,
    encoder.encode(`${headerPart}.${payloadPart}`),
  );
  if (!valid) return { ok: false, reason: "JWT signature does not match" };
  const payload = decodeJsonSegment(payloadPart);
  if (payload === undefined) return { ok: false, reason: "JWT payload is not a JSON object" };
  const now = nowMs / 1000;
  if (payload.exp !== undefined) {
    if (typeof payload.exp !== "number") return { ok: false, reason: "JWT exp is not a number" };
    if (now > payload.exp + LEEWAY_SECONDS) return { ok: false, reason: "JWT has expired" };
  }
  if (payload.nbf !== undefined) {
    if (typeof payload.nbf !== "number") return { ok: false, reason: "JWT nbf is not a number" };
    if (now < payload.nbf - LEEWAY_SECONDS) return { ok: false, reason: "JWT is not valid yet" };
  }
  if (typeof payload.sub !== "string" || payload.sub === "" || payload.sub.length > 256) {
    return { ok: false, reason: "JWT sub must name the user (1-256 characters)" };
  }
  return { ok: true, sub: payload.sub };
}

function unauthorized(message: string): ApiError {
  return new ApiError(401, "unauthorized", message, null, {
    "WWW-Authenticate": 'Bearer realm="condense"',
  });
}

/** Resolves the bearer token of a request to a user, or throws the right `ApiError`. */
export async function authenticate(env: Env, authorization: string | undefined): Promise<string> {
  const keys = parseApiKeys(env.API_KEYS);
  const jwtSecret = env.JWT_SECRET?.trim() ?? "";
  if (keys.length === 0 && jwtSecret === "") {
    throw new ApiError(
      503,
      "auth_not_configured",
      "this deployment has no API_KEYS and no JWT_SECRET, so it refuses every request; set one of them as a secret",
    );
  }
  const match = authorization === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  const token = match?.[1];
  if (token === undefined) {
    throw unauthorized("send `Authorization: Bearer <token>` with an API key or a JWT");
  }
  const fromKey = keys.length > 0 ? await userForApiKey(keys, token) : undefined;
  if (fromKey !== undefined) return fromKey;
  if (jwtSecret !== "" && token.split(".").length === 3) {
    const verdict = await verifyJwt(token, jwtSecret);
    if (verdict.ok) return verdict.sub;
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
