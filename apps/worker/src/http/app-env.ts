/**
 * @module http/app-env
 * Hono's environment type for this app: the Worker's bindings (`Env`, typed by
 * `wrangler types` in `worker-configuration.d.ts`, secrets in `secrets.d.ts`)
 * and the per-request variables the middleware sets.
 */

import type { ErrorShape } from "../api/errors";

/** Per-request fields the handlers add to the request's log line (never content, keys or tokens). */
export interface LogFields {
  user?: string;
  session?: string;
  tier?: number;
  tokensBefore?: number;
  tokensAfter?: number;
  errorCode?: string;
}

/** Where a gateway request goes: the upstream's base URL and the headers that authenticate it there. */
export interface UpstreamTarget {
  baseUrl: string;
  auth: Record<string, string>;
  /** The deployment's own provider key goes upstream (not the caller's): the spending guard applies. */
  deploymentKey: boolean;
}

export interface AppVariables {
  requestId: string;
  /** The authenticated user, set by the auth middleware on `/v1` routes. */
  userId: string;
  log: LogFields;
  /** The route's error shape when it is not the API's own (`http/route`'s `errorShape`). */
  errorShape?: ErrorShape;
  /** A gateway request's upstream, set by the gateway's own authentication (`gateway/upstream/credentials`). */
  upstream: UpstreamTarget;
}

/** Hono's environment type for this app. */
export interface AppEnv {
  Bindings: Env;
  Variables: AppVariables;
}
