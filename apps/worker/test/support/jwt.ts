/**
 * @module test/support/jwt
 * Signs test JWTs the way an identity provider would (HMAC-SHA-256), for the
 * tests of the Worker's bearer-token authentication.
 */

function base64url(bytes: string): string {
  return btoa(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** A compact JWT of `payload` signed with `secret`; `alg` only changes the header (to test refusals). */
export async function signJwt(
  payload: Record<string, unknown>,
  secret = "test-jwt-secret",
  alg = "HS256",
): Promise<string> {
  const head = `${base64url(JSON.stringify({ alg, typ: "JWT" }))}.${base64url(JSON.stringify(payload))}`;
  const key = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signature = new Uint8Array(
    await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(head)),
  );
  return `${head}.${base64url(String.fromCharCode(...signature))}`;
}
