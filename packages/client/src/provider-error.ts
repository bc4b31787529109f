/**
 * @module provider-error
 * Turns whatever a model provider's client threw (an `openai` `APIError`, an
 * Anthropic SDK error, a fetch `Response` body already read, a plain object, a
 * string) into the `{ status, message, body }` that `POST /overflow` takes.
 * The client does not decide what is an overflow: the service does, with the
 * engine's full list of provider phrases, and answers 422 `not_an_overflow`
 * otherwise.
 */

import type { ProviderErrorReport } from "./api-types.js";

/** The service accepts messages up to this length. */
const MAX_MESSAGE = 100_000;
/** A body whose JSON is longer than this is left out (the message carries the phrase). */
const MAX_BODY_JSON = 200_000;

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)
    : undefined;
}

function statusOf(error: Record<string, unknown>): number | undefined {
  for (const name of ["status", "statusCode"]) {
    const value = error[name];
    if (typeof value === "number" && Number.isInteger(value)) return value;
  }
  const response = record(error.response);
  if (response !== undefined && typeof response.status === "number") return response.status;
  return undefined;
}

function bodyOf(error: Record<string, unknown>): unknown {
  // openai / anthropic SDKs keep the parsed body's `error` (or the whole body) in `.error`.
  for (const name of ["error", "body", "responseBody", "data"]) {
    if (error[name] !== undefined && error[name] !== null) return error[name];
  }
  return undefined;
}

function jsonLength(value: unknown): number {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The `{ status, message, body }` report of any thrown value. */
export function describeProviderError(error: unknown): ProviderErrorReport {
  if (typeof error === "string") return { message: error.slice(0, MAX_MESSAGE) };
  const fields = record(error);
  if (fields === undefined) return { message: String(error).slice(0, MAX_MESSAGE) };

  const status = statusOf(fields);
  const body = bodyOf(fields);
  let message = typeof fields.message === "string" ? fields.message : "";
  if (message === "" && typeof body === "string") message = body;
  if (message === "")
    message = jsonLength(fields) <= MAX_MESSAGE ? JSON.stringify(fields) : String(error);

  return {
    message: message.slice(0, MAX_MESSAGE),
    ...(status !== undefined ? { status } : {}),
    ...(body !== undefined && jsonLength(body) <= MAX_BODY_JSON ? { body } : {}),
  };
}
