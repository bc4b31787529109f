/**
 * @module http/request-id
 * Gives every request an id, echoed in `X-Request-Id` on every response
 * (errors included) and carried into the logs. A well-formed incoming id is
 * kept so that a caller can correlate its own logs.
 *
 * Hand-written rather than Hono's `hono/request-id`, which would change what
 * callers see: it sets the header on the context before the handler runs, so
 * a response the handler makes itself (the gateway's, passed through from the
 * upstream) goes without it, and it keeps other ids (shorter than 8
 * characters, or with `=`) while refusing ids with `.` or `:`, which this
 * format takes (`request-id.test.ts`).
 */

import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env";

export const REQUEST_ID_HEADER = "X-Request-Id";

const acceptable = /^[A-Za-z0-9._:-]{8,128}$/;

export function requestId(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const incoming = c.req.header(REQUEST_ID_HEADER);
    const id = incoming !== undefined && acceptable.test(incoming) ? incoming : crypto.randomUUID();
    c.set("requestId", id);
    c.set("log", {});
    await next();
    try {
      c.res.headers.set(REQUEST_ID_HEADER, id);
    } catch {
      // Responses passed through from fetch() have immutable headers.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set(REQUEST_ID_HEADER, id);
    }
  };
}
