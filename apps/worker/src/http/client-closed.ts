/**
 * @module http/client-closed
 * A request whose client went away while its body was being read: nobody is
 * left to answer, and nothing went wrong on our side. It is logged as what it
 * is, an info line and the request line's status 499 (nginx's "client closed
 * request"), never as an unhandled error, so the error log keeps to real 500s.
 */

import type { Context } from "hono";
import { logLine } from "../log/log-lines";
import type { AppEnv } from "./app-env";

/** Thrown by the body reader when the request's body breaks off (the client hung up mid-body). */
export class ClientClosedError extends Error {
  constructor(options?: ErrorOptions) {
    super("the client closed the request before its body was read", options);
    this.name = "ClientClosedError";
  }
}

/** The status a closed request is logged with; no client receives it. */
export const CLIENT_CLOSED_STATUS = 499;

/** The response to a request whose client went away: logged at info level, answered with no body. */
export function clientClosedResponse(c: Context<AppEnv>): Response {
  logLine({ type: "client_closed", requestId: c.get("requestId") });
  c.get("log").errorCode = "client_closed";
  return new Response(null, { status: CLIENT_CLOSED_STATUS });
}
