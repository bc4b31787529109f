import { type CryptoKey, exportSPKI, SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { providerKey, serveJwks, signWith as sign } from "../../test/support/jwks";
import { signJwt } from "../../test/support/jwt";
import { ApiError } from "../api/errors";
import { type JwtSettings, jwtUserId, verifyJwt } from "./jwt";

/** Base64url of JSON, for hand-built (tampered or unsigned) tokens. */
function b64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const now = 1_800_000_000_000;
const seconds = now / 1000;

function hsSettings(secret = "s"): JwtSettings {
  return { secret, jwksUrl: undefined, issuer: undefined, audience: undefined };
}

describe("verifyJwt with JWT_SECRET (HS256)", () => {
  it("accepts a valid token and honours exp and nbf with a 30 s leeway", async () => {
    const ok = await signJwt({ sub: "u1", exp: seconds + 60, nbf: seconds - 60 }, "s");
    expect(await verifyJwt(ok, hsSettings(), now)).toEqual({
      ok: true,
      identity: { issuer: undefined, subject: "u1" },
    });
    const expired = await signJwt({ sub: "u1", exp: seconds - 31 }, "s");
    expect(await verifyJwt(expired, hsSettings(), now)).toMatchObject({ ok: false });
    const withinLeeway = await signJwt({ sub: "u1", exp: seconds - 10 }, "s");
    expect((await verifyJwt(withinLeeway, hsSettings(), now)).ok).toBe(true);
    const early = await signJwt({ sub: "u1", nbf: seconds + 31 }, "s");
    expect(await verifyJwt(early, hsSettings(), now)).toMatchObject({ ok: false });
    const earlyWithinLeeway = await signJwt({ sub: "u1", nbf: seconds + 10 }, "s");
    expect((await verifyJwt(earlyWithinLeeway, hsSettings(), now)).ok).toBe(true);
  });

  it("refuses tampered payloads, alg none, a missing sub and what is not a JWT", async () => {
    const token = await signJwt({ sub: "u1" }, "s");
    const [head, , sig] = token.split(".");
    const tampered = `${head}.${b64url({ sub: "admin" })}.${sig}`;
    expect(await verifyJwt(tampered, hsSettings(), now)).toMatchObject({ ok: false });
    const none = `${b64url({ alg: "none" })}.${b64url({ sub: "u1" })}.`;
    expect(await verifyJwt(none, hsSettings(), now)).toMatchObject({ ok: false });
    expect(await verifyJwt(await signJwt({ exp: seconds + 60 }, "s"), hsSettings(), now)).toEqual({
      ok: false,
      reason: "JWT sub must name the user (1-256 characters)",
    });
    expect((await verifyJwt("a.b", hsSettings(), now)).ok).toBe(false);
  });

  it("enforces JWT_ISSUER and JWT_AUDIENCE when set", async () => {
    const settings = { ...hsSettings(), issuer: "https://idp.test/", audience: "condense" };
    const right = await signJwt({ sub: "u", iss: "https://idp.test/", aud: "condense" }, "s");
    expect(await verifyJwt(right, settings, now)).toEqual({
      ok: true,
      identity: { issuer: "https://idp.test/", subject: "u" },
    });
    const wrongIss = await signJwt({ sub: "u", iss: "https://evil.test/", aud: "condense" }, "s");
    expect(await verifyJwt(wrongIss, settings, now)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("iss"),
    });
    const wrongAud = await signJwt({ sub: "u", iss: "https://idp.test/", aud: "other" }, "s");
    expect(await verifyJwt(wrongAud, settings, now)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("aud"),
    });
    const noAud = await signJwt({ sub: "u", iss: "https://idp.test/" }, "s");
    expect((await verifyJwt(noAud, settings, now)).ok).toBe(false);
  });
});

function jwksSettings(url: string, extra: Partial<JwtSettings> = {}): JwtSettings {
  return { secret: undefined, jwksUrl: url, issuer: undefined, audience: undefined, ...extra };
}

describe("verifyJwt with JWT_JWKS_URL", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("accepts RS256, ES256 and EdDSA tokens signed with a key of the set", async () => {
    const keys = await Promise.all([
      providerKey("RS256", "rsa-1"),
      providerKey("ES256", "ec-1"),
      providerKey("EdDSA", "ed-1"),
    ]);
    const jwks = serveJwks(() => keys.map((key) => key.jwk));
    for (const key of keys) {
      const token = await sign(key, { sub: `user-${key.alg}`, exp: seconds + 60 });
      expect(await verifyJwt(token, jwksSettings(jwks.url), now)).toEqual({
        ok: true,
        identity: { issuer: undefined, subject: `user-${key.alg}` },
      });
    }
    // The set was fetched once and cached.
    expect(jwks.fetches()).toBe(1);
  });

  it("enforces issuer, audience, exp and nbf on them", async () => {
    const key = await providerKey("ES256", "ec-1");
    const jwks = serveJwks(() => [key.jwk]);
    const settings = jwksSettings(jwks.url, { issuer: "https://idp.test/", audience: "condense" });
    const claims = { sub: "u", iss: "https://idp.test/", aud: "condense" };
    expect((await verifyJwt(await sign(key, claims), settings, now)).ok).toBe(true);
    for (const bad of [
      { ...claims, iss: "https://other.test/" },
      { ...claims, aud: "another-api" },
      { ...claims, exp: seconds - 31 },
      { ...claims, nbf: seconds + 31 },
    ]) {
      expect(await verifyJwt(await sign(key, bad), settings, now)).toMatchObject({ ok: false });
    }
  });

  it("refuses a bad signature, an unknown kid and a key of another provider", async () => {
    const key = await providerKey("RS256", "rsa-1");
    const stranger = await providerKey("RS256", "rsa-1");
    const jwks = serveJwks(() => [key.jwk]);
    const settings = jwksSettings(jwks.url);
    const token = await sign(key, { sub: "u" });
    const [head, , sig] = token.split(".");
    const tampered = `${head}.${b64url({ sub: "admin" })}.${sig}`;
    expect(await verifyJwt(tampered, settings, now)).toMatchObject({ ok: false });
    expect(await verifyJwt(await sign(stranger, { sub: "u" }), settings, now)).toMatchObject({
      ok: false,
    });
    expect(await verifyJwt(await sign(key, { sub: "u" }, "rsa-2"), settings, now)).toMatchObject({
      ok: false,
      reason: expect.stringContaining("kid"),
    });
  });

  it("refuses alg none and an HS256 token keyed with the provider's public key", async () => {
    const key = await providerKey("RS256", "rsa-1");
    const jwks = serveJwks(() => [key.jwk]);
    // The classic confusion: the public key (PEM, or its JWK's modulus) used as an HMAC secret.
    const pem = await exportSPKI(key.publicKey as CryptoKey);
    for (const secret of [pem, JSON.stringify(key.jwk), key.jwk.n ?? ""]) {
      const confused = await signJwt({ sub: "admin" }, secret);
      const withKid = await new SignJWT({ sub: "admin" })
        .setProtectedHeader({ alg: "HS256", kid: "rsa-1" })
        .sign(new TextEncoder().encode(secret));
      for (const token of [confused, withKid]) {
        expect(await verifyJwt(token, jwksSettings(jwks.url), now)).toMatchObject({ ok: false });
        // Also where HS256 is accepted: the deployment's own secret is not the public key.
        const both = { ...jwksSettings(jwks.url), secret: "the-deployment-secret" };
        expect(await verifyJwt(token, both, now)).toMatchObject({ ok: false });
      }
    }
    const none = `${b64url({ alg: "none", kid: "rsa-1" })}.${b64url({ sub: "admin" })}.`;
    expect(await verifyJwt(none, jwksSettings(jwks.url), now)).toMatchObject({ ok: false });
  });

  it("refetches the set once on an unknown kid (a rotated key), after the cooldown", async () => {
    const first = await providerKey("ES256", "2026-01");
    const rotated = await providerKey("ES256", "2026-02");
    let published = [first.jwk];
    const jwks = serveJwks(() => published);
    const settings = jwksSettings(jwks.url);
    expect((await verifyJwt(await sign(first, { sub: "u" }), settings, now)).ok).toBe(true);
    expect(jwks.fetches()).toBe(1);
    // A kid nobody published: refused; within the cooldown no refetch (tokens cannot hammer the IdP).
    expect((await verifyJwt(await sign(rotated, { sub: "u" }), settings, now)).ok).toBe(false);
    expect(jwks.fetches()).toBe(1);
    // The provider rotates; past the cooldown the unknown kid refetches the set, once.
    published = [first.jwk, rotated.jwk];
    const later = Date.now() + 31_000;
    vi.spyOn(Date, "now").mockReturnValue(later);
    expect((await verifyJwt(await sign(rotated, { sub: "u" }), settings, later)).ok).toBe(true);
    expect(jwks.fetches()).toBe(2);
    expect((await verifyJwt(await sign(first, { sub: "u" }), settings, later)).ok).toBe(true);
    expect(jwks.fetches()).toBe(2);
  });

  it("answers 503 jwks_unavailable when the set cannot be fetched", async () => {
    const url = `https://idp.test/${crypto.randomUUID()}/jwks.json`;
    vi.spyOn(globalThis, "fetch").mockResolvedValue(new Response("down", { status: 502 }));
    const key = await providerKey("ES256", "ec-1");
    const error = await verifyJwt(await sign(key, { sub: "u" }), jwksSettings(url), now).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, code: "jwks_unavailable" });
  });
});

describe("jwtUserId", () => {
  it("namespaces a JWT's subject by kind and issuer, never the spelling of an API-key user", () => {
    // API-key user ids never hold a colon (API_KEYS splits each pair at its first one).
    expect(jwtUserId({ issuer: undefined, subject: "alice" })).not.toBe("alice");
    expect(jwtUserId({ issuer: undefined, subject: "alice" })).toContain(":");
    expect(jwtUserId({ issuer: "https://a.test/", subject: "alice" })).not.toBe(
      jwtUserId({ issuer: "https://b.test/", subject: "alice" }),
    );
    // Unambiguous whatever the issuer and the subject hold.
    expect(jwtUserId({ issuer: "a:b", subject: "c" })).not.toBe(
      jwtUserId({ issuer: "a", subject: "b:c" }),
    );
  });
});
