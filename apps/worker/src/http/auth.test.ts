import { describe, expect, it } from "vitest";
import { signJwt } from "../../test/jwt";
import { ApiError } from "../api/errors";
import { authenticate, parseApiKeys, userForApiKey, verifyJwt } from "./auth";

/** Base64url of JSON, for hand-built (tampered or unsigned) tokens. */
function b64url(value: unknown): string {
  return btoa(JSON.stringify(value)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const env = (vars: Partial<Env>) => vars as Env;

describe("parseApiKeys", () => {
  it("reads comma- and newline-separated pairs and skips malformed ones", () => {
    expect(parseApiKeys(" a:1, b:two:colons\n c:3 ,nocolon, :empty-user, d: ")).toEqual([
      { userId: "a", token: "1" },
      { userId: "b", token: "two:colons" },
      { userId: "c", token: "3" },
    ]);
    expect(parseApiKeys(undefined)).toEqual([]);
  });
});

describe("userForApiKey", () => {
  it("finds the user of a token and nobody for a near miss", async () => {
    const keys = parseApiKeys("a:secret-one,b:secret-two");
    expect(await userForApiKey(keys, "secret-two")).toBe("b");
    expect(await userForApiKey(keys, "secret-tw")).toBeUndefined();
    expect(await userForApiKey(keys, "secret-two ")).toBeUndefined();
  });
});

describe("verifyJwt", () => {
  const now = 1_800_000_000_000;
  it("accepts a valid token and honours exp and nbf with a small leeway", async () => {
    const token = await signJwt({ sub: "u1", exp: now / 1000 + 60, nbf: now / 1000 - 60 }, "s");
    expect(await verifyJwt(token, "s", now)).toEqual({ ok: true, sub: "u1" });
    const expired = await signJwt({ sub: "u1", exp: now / 1000 - 31 }, "s");
    expect((await verifyJwt(expired, "s", now)).ok).toBe(false);
    const withinLeeway = await signJwt({ sub: "u1", exp: now / 1000 - 10 }, "s");
    expect((await verifyJwt(withinLeeway, "s", now)).ok).toBe(true);
    const early = await signJwt({ sub: "u1", nbf: now / 1000 + 31 }, "s");
    expect((await verifyJwt(early, "s", now)).ok).toBe(false);
  });

  it("rejects tampered payloads and other algorithms", async () => {
    const token = await signJwt({ sub: "u1" }, "s");
    const [head, , sig] = token.split(".");
    expect((await verifyJwt(`${head}.${b64url({ sub: "admin" })}.${sig}`, "s", now)).ok).toBe(
      false,
    );
    expect(
      (await verifyJwt(`${b64url({ alg: "none" })}.${b64url({ sub: "u1" })}.`, "s", now)).ok,
    ).toBe(false);
    expect((await verifyJwt("a.b", "s", now)).ok).toBe(false);
  });
});

describe("authenticate", () => {
  it("fails closed without configuration", async () => {
    const error = await authenticate(env({}), "Bearer x").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("auth_not_configured");
    expect((error as ApiError).status).toBe(503);
  });

  it("uses API keys first, then JWTs", async () => {
    const configured = env({ API_KEYS: "k:key-1", JWT_SECRET: "s" });
    expect(await authenticate(configured, "Bearer key-1")).toBe("k");
    expect(await authenticate(configured, `bearer ${await signJwt({ sub: "j" }, "s")}`)).toBe("j");
    await expect(authenticate(configured, "Basic a2V5LTE=")).rejects.toMatchObject({
      code: "unauthorized",
    });
    await expect(authenticate(configured, undefined)).rejects.toMatchObject({ status: 401 });
  });
});
