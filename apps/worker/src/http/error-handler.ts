/**
 * @module http/error-handler
 * The Hono handlers that turn anything thrown into an error response: in the
 * API's error shape, or in the route's own (the gateway's routes answer in
 * their protocol's). A 500 never carries a stack trace or the original message
 * of an unexpected error.
 */

import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError, type ErrorShape, invalidRequest } from "../api/errors";
import type { AppEnv } from "./app-env";
import { ClientClosedError, clientClosedResponse } from "./client-closed";

/**
 * `error` as the response, in `shape`: by default the route's (`http/route`'s `errorShape`, e.g. a
 * gateway route's protocol), else the API's own. Its code goes on the request's log line.
 */
export function errorResponse(
  c: Context<AppEnv>,
  error: ApiError,
  shape: ErrorShape | undefined = c.get("errorShape"),
): Response {
  c.get("log").errorCode = error.code;
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(shape === undefined ? error.toJSON() : shape(error), error.status);
}

/**
 * Hono `onError`: API errors as they are, a client that hung up as a 499 logged at info level
 * (`http/client-closed`), everything else as an opaque 500 (logged, never shown).
 */
export function handleError(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof ApiError) return errorResponse(c, error);
  if (error instanceof ClientClosedError) return clientClosedResponse(c);
  // Hono's own HTTPExceptions (e.g. from a validator) keep their status but get our shape.
  const status = (error as { status?: unknown }).status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    const refused = invalidRequest("request", "", error.message || "bad request");
    return errorResponse(
      c,
      new ApiError(status as ContentfulStatusCode, refused.code, refused.message, refused.details),
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
