/**
 * @module api/outcome
 * What a Durable Object RPC method returns: a value, or the API error to
 * throw again in the Worker. Class instances do not survive the RPC boundary,
 * so an `ApiError` crosses it as data.
 */

import { ApiError, type SerializedApiError } from "./errors";

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
