import { describe, expect, it } from "vitest";
import { idempotencyInput } from "./idempotency-key";

describe("idempotencyInput", () => {
  it("hashes the body as sent and rejects malformed keys", async () => {
    expect(await idempotencyInput(undefined, "{}")).toBeUndefined();
    expect(await idempotencyInput("k-1", "")).toEqual({
      key: "k-1",
      bodyHash: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    });
    for (const bad of ["", "has space", "ü", "x".repeat(256)]) {
      await expect(idempotencyInput(bad, "{}")).rejects.toMatchObject({
        status: 400,
        code: "invalid_request",
      });
    }
  });
});
