/**
 * @module test/support/jwks
 * An identity provider for the tests of JWKS authentication: key pairs
 * generated with `jose` (RS256, ES256, EdDSA), tokens signed with them, and
 * their public keys served as a JSON Web Key Set from a `fetch` mock (so the
 * app must run in the test isolate: `call(…, { env })`).
 */

import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import { vi } from "vitest";

export type ProviderAlg = "RS256" | "ES256" | "EdDSA";

/** A key pair with its public JWK (kid, alg and use set), as an identity provider publishes it. */
export async function providerKey(alg: ProviderAlg, kid: string) {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
  return { alg, kid, privateKey, publicKey, jwk };
}

export type ProviderKey = Awaited<ReturnType<typeof providerKey>>;

/** A JWT of `payload` signed with `key`; `kid` changes only the header. */
export function signWith(
  key: ProviderKey,
  payload: JWTPayload,
  kid: string = key.kid,
): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: key.alg, kid }).sign(key.privateKey);
}

/**
 * Serves `keys()` as the JWKS at a URL of its own (the Worker caches key sets per URL, so every test
 * gets a fresh cache), counting its fetches; other fetches go out as usual. Undo with
 * `vi.restoreAllMocks()`.
 */
export function serveJwks(keys: () => JWK[]): { url: string; fetches: () => number } {
  const url = `https://idp.test/${crypto.randomUUID()}/.well-known/jwks.json`;
  let fetches = 0;
  const real = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    const target = input instanceof Request ? input.url : String(input);
    if (target !== url) return real(input, init);
    fetches++;
    return Promise.resolve(Response.json({ keys: keys() }));
  });
  return { url, fetches: () => fetches };
}
