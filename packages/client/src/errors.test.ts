import { describe, expect, it } from "vitest";
import { CondenseError } from "./errors.js";

describe("CondenseError", () => {
  it("carries status, code, message, request id and details", () => {
    const error = new CondenseError({
      status: 409,
      code: "idempotency_conflict",
      message: "key reused",
      requestId: "req-1",
      details: { key: "k" },
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("CondenseError");
    expect([error.status, error.code, error.message, error.requestId]).toEqual([
      409,
      "idempotency_conflict",
      "key reused",
      "req-1",
    ]);
    expect(error.details).toEqual({ key: "k" });
  });

  it("defaults request id and details to null and keeps the cause", () => {
    const cause = new TypeError("fetch failed");
    const error = new CondenseError({ status: 0, code: "network_error", message: "down", cause });
    expect(error.requestId).toBeNull();
    expect(error.details).toBeNull();
    expect(error.cause).toBe(cause);
  });

  it("isInstance recognises its own errors, also from another copy of the package, and nothing else", () => {
    expect(
      CondenseError.isInstance(new CondenseError({ status: 500, code: "x", message: "y" })),
    ).toBe(true);
    const foreign = new Error("from another bundle");
    Object.defineProperty(foreign, Symbol.for("@condense/client/CondenseError"), { value: true });
    expect(CondenseError.isInstance(foreign)).toBe(true);
    expect(CondenseError.isInstance(new Error("plain"))).toBe(false);
    expect(CondenseError.isInstance({ status: 500, code: "x", message: "y" })).toBe(false);
    expect(CondenseError.isInstance(null)).toBe(false);
    expect(CondenseError.isInstance("CondenseError")).toBe(false);
  });
});
