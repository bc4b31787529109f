/**
 * @module http/app-env
 * Hono's environment type for this app: the Worker's bindings (`Env`, typed by
 * `wrangler types` in `worker-configuration.d.ts`, secrets in `secrets.d.ts`)
 * and the per-request variables the middleware sets.
 */

/** Per-request fields the handlers add to the request's log line (never content, keys or tokens). */
export interface LogFields {
  user?: string;
  session?: string;
  tier?: number;
  tokensBefore?: number;
  tokensAfter?: number;
  errorCode?: string;
}

export interface AppVariables {
  requestId: string;
  /** The authenticated user, set by the auth middleware on `/v1` routes. */
  userId: string;
  log: LogFields;
}

/** Hono's environment type for this app. */
export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}
