/**
 * @module http/jwt
 * Bearer JWTs, verified with `jose`: HS256 with `JWT_SECRET`, and RS256, ES256
 * or EdDSA with a key of the set published at `JWT_JWKS_URL` (an identity
 * provider's: Auth0, Clerk, Cloudflare Access, Supabase…). `JWT_ISSUER` and
 * `JWT_AUDIENCE` are enforced when set; `exp` and `nbf` with 30 s of leeway.
 * The token's header picks the key only among what is configured: HS256
 * only with the secret, the asymmetric algorithms only with the set, so an
 * HS256 token keyed with the provider's public key never meets that key,
 * and `alg: none` meets nothing.
 *
 * A user's id is namespaced by kind and issuer (`jwtUserId`), so a JWT's
 * `sub` is never the same user as an API key's user of the same spelling.
 */

import {
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from "jose";
import { ApiError } from "../api/errors";
import { workerConfig } from "../config/worker-config";

/** The deployment's JWT settings; undefined fields are not configured. */
export interface JwtSettings {
  secret: string | undefined;
  jwksUrl: string | undefined;
  issuer: string | undefined;
  /** One audience, or several comma-separated (the token must name one of them). */
  audience: string | undefined;
}

function setting(value: string | undefined): string | undefined {
  const trimmed = value?.trim() ?? "";
  return trimmed === "" ? undefined : trimmed;
}

/** The JWT settings of `env`, or undefined when it accepts no JWT (neither a secret nor a key set). */
export function jwtSettings(env: Env): JwtSettings | undefined {
  const config = workerConfig(env);
  const settings: JwtSettings = {
    secret: setting(env.JWT_SECRET),
    jwksUrl: config.jwtJwksUrl,
    issuer: config.jwtIssuer,
    audience: config.jwtAudience,
  };
  return settings.secret === undefined && settings.jwksUrl === undefined ? undefined : settings;
}

/** Who a valid JWT says the user is. */
export interface JwtIdentity {
  issuer: string | undefined;
  subject: string;
}

export type JwtVerdict = { ok: true; identity: JwtIdentity } | { ok: false; reason: string };

/**
 * The user id of a JWT's identity: `jwt:<issuer, URI-encoded>:<sub>`. An API-key user's id never
 * holds a colon (`API_KEYS` splits each pair at its first), so the two kinds never meet; the encoded
 * issuer holds none either, so the id is unambiguous whatever the `sub`.
 */
export function jwtUserId(identity: JwtIdentity): string {
  return `jwt:${encodeURIComponent(identity.issuer ?? "")}:${identity.subject}`;
}

/** Clock skew tolerated on `exp` and `nbf`, in seconds. */
const LEEWAY_SECONDS = 30;
/** What a key of the set may sign with; never a symmetric algorithm. */
const ASYMMETRIC_ALGORITHMS = ["RS256", "ES256", "EdDSA"];
/**
 * Seconds before an unknown `kid` may refetch the set again (jose's default, stated): a rotated key
 * is found by one refetch, while tokens with made-up kids cannot make every request fetch the set.
 */
const REFETCH_COOLDOWN_MS = 30_000;
/** How long a fetched set is used before it is fetched again regardless. */
const KEY_SET_MAX_AGE_MS = 10 * 60_000;

/** One cached key set per URL, for the isolate's life (jose keeps the keys and refetches). */
const keySets = new Map<string, JWTVerifyGetKey>();

/** The key set could not be fetched or read: the deployment's problem, not the token's. */
class KeySetUnavailable extends Error {}

function keySet(url: string): JWTVerifyGetKey {
  let remote = keySets.get(url);
  if (remote === undefined) {
    remote = createRemoteJWKSet(new URL(url), {
      cooldownDuration: REFETCH_COOLDOWN_MS,
      cacheMaxAge: KEY_SET_MAX_AGE_MS,
    });
    keySets.set(url, remote);
  }
  const fetched = remote;
  return async (header, token) => {
    try {
      return await fetched(header, token);
    } catch (error) {
      // The token's own faults pass; everything else is about reaching or reading the set.
      if (
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys ||
        error instanceof errors.JOSENotSupported
      ) {
        throw error;
      }
      throw new KeySetUnavailable(error instanceof Error ? error.message : String(error));
    }
  };
}

const encoder = new TextEncoder();

function claimReason(error: errors.JWTClaimValidationFailed, settings: JwtSettings): string {
  if (error.claim === "iss") return `JWT iss must be ${JSON.stringify(settings.issuer)}`;
  if (error.claim === "aud") return `JWT aud must include ${JSON.stringify(settings.audience)}`;
  if (error.claim === "nbf") return "JWT is not valid yet";
  return `JWT claim ${error.claim} is not valid: ${error.reason}`;
}

/** Why jose refused the token, for the 401's message. */
function refusal(error: unknown, settings: JwtSettings): string {
  if (error instanceof errors.JWTExpired) return "JWT has expired";
  if (error instanceof errors.JWTClaimValidationFailed) return claimReason(error, settings);
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return "JWT signature does not match";
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return "JWT kid names no key of the set at JWT_JWKS_URL";
  }
  if (error instanceof errors.JOSEError) return `not a valid JWT (${error.message})`;
  return "not a valid JWT";
}

function acceptedAlgorithms(settings: JwtSettings): string[] {
  return [
    ...(settings.secret !== undefined ? ["HS256"] : []),
    ...(settings.jwksUrl !== undefined ? ASYMMETRIC_ALGORITHMS : []),
  ];
}

async function verified(
  token: string,
  alg: unknown,
  settings: JwtSettings,
  nowMs: number,
): Promise<JWTPayload | string> {
  const audience = settings.audience?.split(",").map((entry) => entry.trim());
  const options = {
    ...(settings.issuer !== undefined ? { issuer: settings.issuer } : {}),
    ...(audience !== undefined ? { audience } : {}),
    clockTolerance: LEEWAY_SECONDS,
    currentDate: new Date(nowMs),
  };
  if (alg === "HS256" && settings.secret !== undefined) {
    const key = encoder.encode(settings.secret);
    return (await jwtVerify(token, key, { ...options, algorithms: ["HS256"] })).payload;
  }
  if (typeof alg === "string" && ASYMMETRIC_ALGORITHMS.includes(alg) && settings.jwksUrl) {
    const keys = keySet(settings.jwksUrl);
    return (await jwtVerify(token, keys, { ...options, algorithms: ASYMMETRIC_ALGORITHMS }))
      .payload;
  }
  return `JWT alg ${JSON.stringify(alg)} is not accepted here; use ${acceptedAlgorithms(settings).join(", ")}`;
}

/**
 * The identity of a valid JWT, or why it is not valid. Throws 503 `jwks_unavailable` when the key
 * set cannot be fetched: the token may be fine, and the caller should retry rather than re-login.
 */
export async function verifyJwt(
  token: string,
  settings: JwtSettings,
  nowMs: number = Date.now(),
): Promise<JwtVerdict> {
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(token).alg;
  } catch {
    return { ok: false, reason: "not a JWT" };
  }
  let payload: JWTPayload | string;
  try {
    payload = await verified(token, alg, settings, nowMs);
  } catch (error) {
    if (error instanceof KeySetUnavailable) {
      throw new ApiError(
        503,
        "jwks_unavailable",
        `the deployment could not fetch its JWT key set (JWT_JWKS_URL: ${error.message}); retry later, and if it persists the operator should check JWT_JWKS_URL`,
      );
    }
    return { ok: false, reason: refusal(error, settings) };
  }
  if (typeof payload === "string") return { ok: false, reason: payload };
  const { sub, iss } = payload;
  if (typeof sub !== "string" || sub === "" || sub.length > 256) {
    return { ok: false, reason: "JWT sub must name the user (1-256 characters)" };
  }
  const issuer = typeof iss === "string" && iss !== "" ? iss : undefined;
  return { ok: true, identity: { issuer, subject: sub } };
}
