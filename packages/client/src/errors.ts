/**
 * @module errors
 * The one error type of the client. Every failure of a Condense call becomes a
 * `CondenseApiError`: the service's own `{ error: { code, message, details } }`
 * with the HTTP status and the `X-Request-Id` to quote in a bug report, or a
 * client-side failure (`network_error`, `timeout`, `invalid_response`) with
 * status 0.
 */

/** Brand shared by every copy of this module, so `isInstance` works across bundles and realms. */
const BRAND = Symbol.for("@condense/client/CondenseApiError");

/** Codes the client itself produces (the service's codes come as it sends them). */
export type ClientErrorCode = "network_error" | "timeout" | "invalid_response" | "http_error";

export interface CondenseApiErrorInit {
  /** HTTP status, or 0 when no response arrived. */
  status: number;
  code: string;
  message: string;
  requestId?: string | null;
  details?: unknown;
  cause?: unknown;
}

export class CondenseApiError extends Error {
  /** HTTP status of the response, or 0 when none arrived (network failure, timeout). */
  readonly status: number;
  /** The service's error code (`not_found`, `idempotency_conflict`, …) or a client one. */
  readonly code: string;
  /** `X-Request-Id` of the failed response, when there was one. */
  readonly requestId: string | null;
  /** Extra information from the service (e.g. the path of an invalid field). */
  readonly details: unknown;

  constructor(init: CondenseApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "CondenseApiError";
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId ?? null;
    this.details = init.details ?? null;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** Whether `value` is a `CondenseApiError`, also one from another copy of this package. */
  static isInstance(value: unknown): value is CondenseApiError {
    return typeof value === "object" && value !== null && BRAND in value;
  }
}
