import { describe, expect, it } from "vitest";
import { CondenseApiError } from "./errors.js";

describe("CondenseApiError", () => {
  it("carries status, code, message, request id and details", () => {
    const error = new CondenseApiError({
      status: 409,
      code: "idempotency_conflict",
      message: "key reused",
      requestId: "req-1",
      details: { key: "k" },
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("CondenseApiError");
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
    const error = new CondenseApiError({
      status: 0,
      code: "network_error",
      message: "down",
      cause,
    });
    expect(error.requestId).toBeNull();
    expect(error.details).toBeNull();
    expect(error.cause).toBe(cause);
  });

  it("isInstance recognises its own errors, also from another copy of the package, and nothing else", () => {
    expect(
      CondenseApiError.isInstance(new CondenseApiError({ status: 500, code: "x", message: "y" })),
    ).toBe(true);
    const foreign = new Error("from another bundle");
    Object.defineProperty(foreign, Symbol.for("@condense/client/CondenseApiError"), {
      value: true,
    });
    expect(CondenseApiError.isInstance(foreign)).toBe(true);
    expect(CondenseApiError.isInstance(new Error("plain"))).toBe(false);
    expect(CondenseApiError.isInstance({ status: 500, code: "x", message: "y" })).toBe(false);
    expect(CondenseApiError.isInstance(null)).toBe(false);
    expect(CondenseApiError.isInstance("CondenseApiError")).toBe(false);
  });
});
