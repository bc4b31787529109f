/**
 * @module env
 * The Worker's bindings: the Durable Object namespace, vars from
 * `wrangler.jsonc` and secrets. Every secret is optional; what is missing
 * switches a feature off (auth fails closed, summaries fall back to the
 * deterministic tier, OpenAI forwarding answers 501).
 */

import type { SessionObject } from "./session/session-object";

export interface Env {
  SESSIONS: DurableObjectNamespace<SessionObject>;
  /** The inspector's built files (`assets` in wrangler.jsonc); absent where it is not deployed. */
  ASSETS?: Fetcher;
  /** `userId:token` pairs, comma- or newline-separated. */
  API_KEYS?: string;
  /** HS256 secret for JWT bearer tokens whose `sub` is the user. */
  JWT_SECRET?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  SUMMARIZER_BASE_URL?: string;
  SUMMARIZER_API_KEY?: string;
  SUMMARIZER_MODEL?: string;
  DEFAULT_MODEL?: string;
  COOLDOWN_SECONDS?: string;
  /** Milliseconds a background compaction waits after the append that scheduled it. Default 0. */
  COMPACTION_DELAY_MS?: string;
}

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
