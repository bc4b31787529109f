/**
 * @module http/request-log
 * The request's log line: one JSON line per request, written after the
 * response is ready (errors included), with the fields the handlers added
 * (`LogFields`: ids, counts, timings; never content, keys or tokens).
 */

import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";
import { logLine } from "../log/log-lines";
import type { AppEnv } from "./app-env";

/** Emits the request line after the response is ready (errors included). */
export function requestLog(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = Date.now();
    await next();
    const fields = c.get("log");
    logLine({
      type: "request",
      requestId: c.get("requestId"),
      method: c.req.method,
      route: routePath(c, -1),
      status: c.res.status,
      durationMs: Date.now() - started,
      ...fields,
    });
  };
}
