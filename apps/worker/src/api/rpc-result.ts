/**
 * @module api/rpc-result
 * What a Durable Object RPC method returns: a value, or the API error to
 * throw again in the Worker. Class instances do not survive the RPC boundary,
 * so an `ApiError` crosses it as data.
 */

import { ApiError, type SerializedApiError } from "./errors";

export type RpcResult<T> = { ok: true; value: T } | { ok: false; error: SerializedApiError };

/** Runs `fn`, turning an `ApiError` into a failed result; anything else propagates as a 500. */
export async function rpcResult<T>(fn: () => T | Promise<T>): Promise<RpcResult<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    if (error instanceof ApiError) return { ok: false, error: error.serialize() };
    throw error;
  }
}

/** The value of a result, or its error thrown as an `ApiError`. */
export function unwrap<T>(result: RpcResult<T>): T {
  if (result.ok) return result.value;
  throw ApiError.from(result.error);
}
