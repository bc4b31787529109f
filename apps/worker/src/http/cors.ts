/**
 * @module http/cors
 * CORS for browsers on the origins the deployment lists (`CORS_ORIGINS`):
 * Hono's `cors` middleware, its origin function answering listed origins
 * only. A request from any other origin (or with none) passes through
 * untouched, with no CORS header at all: Hono's middleware alone would still
 * answer its preflight with 204 and the allowed methods and headers.
 */

import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { workerConfig } from "../config/worker-config";
import type { AppEnv } from "./app-env";

export interface CorsHeaders {
  /** Request headers a listed origin may send, besides the API's own (authorization, content type, idempotency key). */
  allow: readonly string[];
  /** Response headers a listed origin may read, besides the request id and `Retry-After`. */
  expose: readonly string[];
}

/** Whether `origin` is one `CORS_ORIGINS` lists (exactly: scheme, host and port). */
function isListed(env: Env, origin: string | undefined): origin is string {
  return origin !== undefined && workerConfig(env).corsOrigins.includes(origin);
}

export function corsForListedOrigins(headers: CorsHeaders): MiddlewareHandler<AppEnv> {
  const handler = cors({
    origin: (origin, c) => (isListed(c.env as Env, origin) ? origin : null),
    allowMethods: ["GET", "POST", "PATCH", "DELETE"],
    allowHeaders: ["Authorization", "Content-Type", "Idempotency-Key", ...headers.allow],
    exposeHeaders: ["X-Request-Id", "Retry-After", ...headers.expose],
    maxAge: 600,
  });
  return async (c, next) => {
    if (!isListed(c.env, c.req.header("Origin"))) {
      await next();
      return;
    }
    return handler(c, next);
  };
}
