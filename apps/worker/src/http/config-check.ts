/**
 * @module http/config-check
 * Reads the Worker's configuration (`config/worker-config`) before any route
 * runs: a deployment with a bad variable answers every request with a 500
 * `invalid_configuration` naming it (and logs it), instead of running on a
 * default the operator did not choose. Parsed once per isolate.
 */

import type { MiddlewareHandler } from "hono";
import { ApiError } from "../api/errors";
import { type ConfigError, workerConfig } from "../config/worker-config";
import type { AppEnv } from "./app-env";

/** The 500 a bad configuration answers: what to fix, never a value. */
export function configErrorOf(error: ConfigError): ApiError {
  return new ApiError(500, "invalid_configuration", error.message, { variable: error.variable });
}

export function configCheck(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    workerConfig(c.env);
    await next();
  };
}
