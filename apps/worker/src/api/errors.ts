/**
 * @module api/errors
 * The one error type of the API and its wire shape,
 * `{ "error": { "code", "message", "details" } }`, and the form in which it
 * crosses the Durable Object RPC boundary. The HTTP layer turns it into a
 * response (`http/error-handler`).
 */

import type { ContentfulStatusCode } from "hono/utils/http-status";

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
  // running it in production (issue 20)
  | "jwks_unavailable"
  | "rate_limited"
  | "budget_exceeded"
  | "not_found"
  | "method_not_allowed"
  | "idempotency_conflict"
  | "not_an_overflow"
  | "context_over_window"
  | "format_not_available"
  | "invalid_query"
  | "not_configured"
  | "upstream_error"
  // memory and the user's lists (issue 11)
  | "memory_full"
  | "memory_too_long"
  | "memory_not_found"
  | "memory_secret"
  | "invalid_cursor"
  // the gateway's own (sent in the route's protocol shape)
  | "unknown_upstream"
  | "upstream_unreachable"
  | "upstream_timeout"
  | "recall_rounds_exceeded"
  | "history_on_provider"
  | "invalid_configuration"
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

/**
 * The body of an error response: the API's own (`toJSON`), or a provider protocol's where a route
 * answers in one (the gateway), so that the provider's SDKs raise their own error classes.
 */
export type ErrorShape = (error: ApiError) => unknown;

/** The 400 `invalid_query`: a search's `q` cannot be searched (session search and memory search alike). */
export function invalidQuery(message: string, details: unknown = null): ApiError {
  return new ApiError(400, "invalid_query", message, details);
}

/** Where a bad field of a request is (`request` when no one part is to blame). */
export type RequestPart = "body" | "query" | "path" | "header" | "request";

/** One bad field, as `details.issues` of `invalid_request` lists them (zod's issue codes, or `custom`). */
export interface RequestIssue {
  path: string;
  message: string;
  code: string;
}

/**
 * The 400 `invalid_request` for one bad field, in the documented shape every `invalid_request` has:
 * `details: { in, issues: [{ path, message, code }] }`, the same as a schema's refusal.
 */
export function invalidRequest(
  where: RequestPart,
  path: string,
  message: string,
  code = "custom",
): ApiError {
  return new ApiError(400, "invalid_request", message, {
    in: where,
    issues: [{ path, message, code }],
  });
}
