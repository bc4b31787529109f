/**
 * @module http/rate-limit
 * The per-user request rate limit: each authenticated request (the API's and
 * the gateway's) counts against its user's key in the Workers Rate Limiting
 * binding `RATE_LIMITER`; over the limit it is refused with 429
 * `rate_limited` and `Retry-After` before its handler runs, so it changes
 * nothing and sends nothing upstream. Without the binding nothing is limited.
 * Public routes are not counted.
 */

import type { MiddlewareHandler } from "hono";
import { ApiError } from "../api/errors";
import type { AppEnv } from "./app-env";

/**
 * The wait suggested to a refused caller. The binding does not say when its window frees up, so
 * this is its longest period (60 s, as wrangler.jsonc configures it): a client that waits this long
 * finds its count renewed.
 */
export const RATE_LIMIT_RETRY_AFTER_SECONDS = 60;

/** Counts a request of `userId`, or throws 429 `rate_limited` when they are over the limit. */
export async function enforceRateLimit(env: Env, userId: string): Promise<void> {
  // Optional: a deployment without the binding (or a test's env without it) is not limited.
  const limiter: RateLimit | undefined = env.RATE_LIMITER;
  if (limiter === undefined) return;
  const { success } = await limiter.limit({ key: userId });
  if (success) return;
  throw new ApiError(
    429,
    "rate_limited",
    `too many requests for this user; retry after ${RATE_LIMIT_RETRY_AFTER_SECONDS} seconds, and spread requests out (the deployment's RATE_LIMITER sets the limit)`,
    null,
    { "Retry-After": String(RATE_LIMIT_RETRY_AFTER_SECONDS) },
  );
}

/** The rate limit as middleware, after the middleware that set the request's `userId`. */
export function rateLimit(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await enforceRateLimit(c.env, c.get("userId"));
    await next();
  };
}
