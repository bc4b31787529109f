/**
 * @module api/errors
 * The one error type of the API and its wire shape,
 * `{ "error": { "code", "message", "details" } }`, plus the Hono handlers that
 * turn anything thrown into it. A 500 never carries a stack trace or the
 * original message of an unexpected error.
 */

import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../http/app-env";

export type ErrorCode =
  | "invalid_json"
  | "invalid_request"
  | "invalid_messages"
  | "invalid_session_id"
  | "invalid_options"
  | "unknown_format"
  | "unsupported_media_type"
  | "body_too_large"
  | "message_too_large"
  | "unauthorized"
  | "auth_not_configured"
  | "not_found"
  | "method_not_allowed"
  | "idempotency_conflict"
  | "not_an_overflow"
  | "format_not_available"
  | "not_configured"
  | "upstream_error"
  | "internal_error";

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  details: unknown;
}

/** An error as it crosses the Durable Object RPC boundary (class instances do not survive it). */
export interface SerializedApiError extends ErrorBody {
  status: ContentfulStatusCode;
}

export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: ErrorCode;
  readonly details: unknown;
  readonly headers: Record<string, string>;

  constructor(
    status: ContentfulStatusCode,
    code: ErrorCode,
    message: string,
    details: unknown = null,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  toJSON(): { error: ErrorBody } {
    return { error: { code: this.code, message: this.message, details: this.details } };
  }

  serialize(): SerializedApiError {
    return { status: this.status, code: this.code, message: this.message, details: this.details };
  }

  static from(serialized: SerializedApiError): ApiError {
    return new ApiError(serialized.status, serialized.code, serialized.message, serialized.details);
  }
}

/** What a Durable Object RPC method returns: a value, or an API error to re-throw in the Worker. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: SerializedApiError };

/** Runs `fn`, turning an `ApiError` into a failed outcome; anything else propagates as a 500. */
export async function outcome<T>(fn: () => T | Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error: error.serialize() };
    throw error;
  }
}

/** The value of an outcome, or its error thrown as an `ApiError`. */
export function unwrap<T>(result: Outcome<T>): T {
  if (result.ok) return result.value;
  throw ApiError.from(result.error);
}

export function errorResponse(c: Context<AppEnv>, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(error.toJSON(), error.status);
}

/** Hono `onError`: API errors as they are, everything else as an opaque 500 (logged, never shown). */
export function handleError(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof ApiError) return errorResponse(c, error);
  // Hono's own HTTPExceptions (e.g. from a validator) keep their status but get our shape.
  const status = (error as { status?: unknown }).status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    return errorResponse(
      c,
      new ApiError(
        status as ContentfulStatusCode,
        "invalid_request",
        error.message || "bad request",
      ),
    );
  }
  console.error(
    JSON.stringify({
      level: "error",
      msg: "unhandled error",
      requestId: c.get("requestId"),
      error: error.name,
    }),
  );
  return errorResponse(
    c,
    new ApiError(
      500,
      "internal_error",
      "internal error; retry later, and report the X-Request-Id if it persists",
    ),
  );
}
