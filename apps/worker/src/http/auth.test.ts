import { describe, expect, it } from "vitest";
import { signJwt } from "../../test/support/jwt";
import { ApiError } from "../api/errors";
import { authenticate, parseApiKeys, userForApiKey } from "./auth";
import { jwtUserId } from "./jwt";

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
    expect(await authenticate(configured, `bearer ${await signJwt({ sub: "j" }, "s")}`)).toBe(
      jwtUserId({ issuer: undefined, subject: "j" }),
    );
    await expect(authenticate(configured, "Basic a2V5LTE=")).rejects.toMatchObject({
      code: "unauthorized",
    });
    await expect(authenticate(configured, undefined)).rejects.toMatchObject({ status: 401 });
  });

  it("never takes a JWT whose sub spells an API-key user for that user", async () => {
    const configured = env({ API_KEYS: "k:key-1", JWT_SECRET: "s" });
    const fromKey = await authenticate(configured, "Bearer key-1");
    const fromJwt = await authenticate(configured, `Bearer ${await signJwt({ sub: "k" }, "s")}`);
    const withIssuer = await signJwt({ sub: "k", iss: "https://idp.test/" }, "s");
    expect(fromKey).toBe("k");
    expect(fromJwt).not.toBe(fromKey);
    expect(await authenticate(configured, `Bearer ${withIssuer}`)).not.toBe(fromKey);
    expect(await authenticate(configured, `Bearer ${withIssuer}`)).not.toBe(fromJwt);
  });
});
