/**
 * @module config/worker-config
 * The Worker's configuration, read from its variables and bindings by one zod
 * schema, once per isolate (cached per `env` object: the Worker and each
 * Durable Object read the same parsed values). A variable that is set but
 * wrong is a `ConfigError` naming it and saying what it should hold, never a
 * silent default: the app answers every request with that error
 * (`http/config-check`) until the deployment is fixed. An empty or blank
 * variable counts as unset. Values are never echoed (some are secrets).
 *
 * Secrets (`API_KEYS`, `JWT_SECRET`, the provider keys, the gateway's
 * per-upstream keys `GATEWAY_KEY_<NAME>`, read by name) are read where they
 * are used, and so is `DEFAULT_MODEL` (a plain string, read once, into the session object's `SessionScope`);
 * every other variable is read here.
 */

import { z } from "zod";

export const DEFAULT_COOLDOWN_SECONDS = 600;
export const DEFAULT_SESSION_LIST_REPORT_MS = 5_000;
export const DEFAULT_GATEWAY_TIMEOUT_MS = 600_000;
/** Under the idle limits of common proxies (60 s on load balancers, 100 s on Cloudflare's edge). */
export const DEFAULT_GATEWAY_KEEPALIVE_MS = 20_000;
export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com";
export const DEFAULT_SUMMARIZER_MODEL = "gpt-4o-mini";
/** Workers AI's default summarizer: follows instructions, calls tools (the memory flush), 24k window. */
export const DEFAULT_WORKERS_AI_MODEL = "@cf/meta/llama-3.3-70b-instruct-fp8-fast";
export const DEFAULT_WORKERS_AI_CONTEXT_WINDOW = 24_000;
const DAY_MS = 86_400_000;

/** Where LLM summaries and the memory flush run; `extractive` is the deterministic default. */
export type SummarizerConfig =
  | { kind: "extractive" }
  | { kind: "openai"; baseURL: string | undefined; apiKey: string; model: string }
  | { kind: "workers-ai"; model: string; contextWindow: number };

export interface WorkerConfig {
  /** Seconds the LLM summarizer is skipped after it failed (`COOLDOWN_SECONDS`). */
  cooldownSeconds: number;
  /** Milliseconds a background compaction waits after the append that scheduled it. */
  compactionDelayMs: number;
  /** Milliseconds between two reports of a session's figures to its user's list. */
  sessionListReportMs: number;
  /** How long a session may stay idle before its alarm deletes it; undefined keeps it forever. */
  sessionRetentionMs: number | undefined;
  /** Origins whose browsers may call the API (`CORS_ORIGINS`); empty: none. */
  corsOrigins: readonly string[];
  openaiBaseUrl: string;
  anthropicBaseUrl: string;
  /** More gateway upstreams by lower-cased name (`GATEWAY_UPSTREAMS`), in their order. */
  gatewayUpstreams: ReadonlyMap<string, string>;
  gatewayTimeoutMs: number;
  gatewayStreamIdleTimeoutMs: number;
  /** Silence after which a waiting gateway response is kept alive (`gateway/keep-alive`); 0: never. */
  gatewayKeepAliveMs: number;
  summarizer: SummarizerConfig;
  /** Tokens a day each user may spend on the deployment's provider keys; undefined: no cap. */
  gatewayUserTokensPerDay: number | undefined;
  /** Where the identity provider publishes its signing keys (`JWT_JWKS_URL`). */
  jwtJwksUrl: string | undefined;
  /** The issuer a JWT must name (`JWT_ISSUER`). */
  jwtIssuer: string | undefined;
  /** The audience, or comma-separated audiences, a JWT must name one of (`JWT_AUDIENCE`). */
  jwtAudience: string | undefined;
}

/** The deployment's configuration is wrong: `variable` names what to fix. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(
      `invalid configuration: ${variable} ${problem}; fix it in wrangler.jsonc (vars) or with \`wrangler secret put ${variable}\``,
    );
  }
}

/** Names an upstream may have: they are path segments of the gateway's routes. */
export const UPSTREAM_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** A variable as the schema reads it: trimmed, and blank as unset. */
const text = z
  .string()
  .optional()
  .transform((value) => {
    const trimmed = value?.trim();
    return trimmed === undefined || trimmed === "" ? undefined : trimmed;
  });

function number(what: string, min: number, fallback: number, integer = true) {
  return text.pipe(
    z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (value === undefined) return fallback;
        const parsed = Number(value);
        if (!Number.isFinite(parsed) || parsed < min) {
          ctx.addIssue({ code: "custom", message: `must be ${what}` });
          return z.NEVER;
        }
        return integer ? Math.floor(parsed) : parsed;
      }),
  );
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

function httpUrl(fallback: string) {
  return text.transform((value, ctx) => {
    if (value === undefined) return fallback;
    if (!isHttpUrl(value)) {
      ctx.addIssue({ code: "custom", message: "must be an http(s) URL" });
      return z.NEVER;
    }
    return value.replace(/\/+$/, "");
  });
}

const upstreamList = text.transform((value, ctx) => {
  const upstreams = new Map<string, string>();
  const entries = (value ?? "")
    .split(/[,\n]/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  entries.forEach((entry, index) => {
    const equals = entry.indexOf("=");
    const name = entry.slice(0, Math.max(0, equals)).trim();
    const url = entry.slice(equals + 1).trim();
    if (equals <= 0 || !UPSTREAM_NAME.test(name) || !isHttpUrl(url)) {
      ctx.addIssue({
        code: "custom",
        message: `entry ${index + 1} must be \`name=https://…\` (a name of letters, digits, _ and -, then an http(s) URL)`,
      });
      return;
    }
    upstreams.set(name.toLowerCase(), url.replace(/\/+$/, ""));
  });
  return upstreams;
});

const originList = text.transform((value, ctx) => {
  const origins = (value ?? "")
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  origins.forEach((origin, index) => {
    let canonical: string | undefined;
    try {
      canonical = new URL(origin).origin;
    } catch {
      canonical = undefined;
    }
    if (canonical !== origin) {
      ctx.addIssue({
        code: "custom",
        message: `entry ${index + 1} must be an origin as browsers send it, e.g. \`https://app.example.com\` (scheme, host and port only, no path or trailing slash)`,
      });
    }
  });
  return origins;
});

const EnvSchema = z.object({
  COOLDOWN_SECONDS: number("a number of seconds ≥ 0", 0, DEFAULT_COOLDOWN_SECONDS),
  COMPACTION_DELAY_MS: number("a number of milliseconds ≥ 0", 0, 0),
  SESSION_LIST_REPORT_MS: number("a number of milliseconds ≥ 0", 0, DEFAULT_SESSION_LIST_REPORT_MS),
  SESSION_RETENTION_DAYS: number(
    "a number of days ≥ 0 (decimals allowed; 0 keeps sessions forever)",
    0,
    0,
    false,
  ),
  CORS_ORIGINS: originList,
  OPENAI_BASE_URL: httpUrl(DEFAULT_OPENAI_BASE_URL),
  ANTHROPIC_BASE_URL: httpUrl(DEFAULT_ANTHROPIC_BASE_URL),
  GATEWAY_UPSTREAMS: upstreamList,
  GATEWAY_TIMEOUT_MS: number("a number of milliseconds > 0", 1, DEFAULT_GATEWAY_TIMEOUT_MS),
  GATEWAY_STREAM_IDLE_TIMEOUT_MS: number(
    "a number of milliseconds > 0",
    1,
    DEFAULT_GATEWAY_TIMEOUT_MS,
  ),
  GATEWAY_KEEPALIVE_MS: number(
    "a number of milliseconds ≥ 0 (0: no keep-alive)",
    0,
    DEFAULT_GATEWAY_KEEPALIVE_MS,
  ),
  SUMMARIZER: text.pipe(
    z
      .enum(["openai", "workers-ai", "extractive"], {
        error: "must be one of openai, workers-ai, extractive (or unset)",
      })
      .optional(),
  ),
  SUMMARIZER_BASE_URL: text.refine((value) => value === undefined || isHttpUrl(value), {
    message: "must be an http(s) URL",
  }),
  SUMMARIZER_API_KEY: text,
  SUMMARIZER_MODEL: text,
  SUMMARIZER_CONTEXT_WINDOW: number("a whole number of tokens ≥ 1,000", 1_000, 0),
  GATEWAY_USER_TOKENS_PER_DAY: text.refine((value) => value === undefined || /^\d+$/.test(value), {
    message: "must be a whole number of tokens (0 or empty: no cap)",
  }),
  JWT_JWKS_URL: text.refine((value) => value === undefined || isHttpUrl(value), {
    message: "must be the http(s) URL of the identity provider's key set (JWKS)",
  }),
  JWT_ISSUER: text,
  JWT_AUDIENCE: text,
});

type ParsedEnv = z.output<typeof EnvSchema>;

/** Which summarizer the variables choose: `SUMMARIZER`, else an OpenAI-compatible one when its URL or key is set. */
function summarizerOf(vars: ParsedEnv, hasAi: boolean): SummarizerConfig {
  const openaiSet = vars.SUMMARIZER_BASE_URL !== undefined || vars.SUMMARIZER_API_KEY !== undefined;
  const kind = vars.SUMMARIZER ?? (openaiSet ? "openai" : "extractive");
  if (kind === "workers-ai") {
    if (!hasAi) {
      throw new ConfigError(
        "SUMMARIZER",
        'is "workers-ai" but the Worker has no Workers AI binding: add `"ai": { "binding": "AI" }` to wrangler.jsonc',
      );
    }
    return {
      kind,
      model: vars.SUMMARIZER_MODEL ?? DEFAULT_WORKERS_AI_MODEL,
      contextWindow:
        vars.SUMMARIZER_CONTEXT_WINDOW > 0
          ? vars.SUMMARIZER_CONTEXT_WINDOW
          : DEFAULT_WORKERS_AI_CONTEXT_WINDOW,
    };
  }
  if (kind === "openai") {
    if (!openaiSet) {
      throw new ConfigError(
        "SUMMARIZER",
        'is "openai" but neither SUMMARIZER_BASE_URL nor SUMMARIZER_API_KEY is set: set them, or leave SUMMARIZER unset',
      );
    }
    return {
      kind,
      baseURL: vars.SUMMARIZER_BASE_URL,
      // An OpenAI-compatible local server may need no key; the SDK still wants a string.
      apiKey: vars.SUMMARIZER_API_KEY ?? "unused",
      model: vars.SUMMARIZER_MODEL ?? DEFAULT_SUMMARIZER_MODEL,
    };
  }
  return { kind: "extractive" };
}

/** Parses and checks the configuration in `env`; throws a `ConfigError` naming the first bad variable. */
export function parseWorkerConfig(env: Env): WorkerConfig {
  const result = EnvSchema.safeParse(env);
  if (!result.success) {
    const issue = result.error.issues[0];
    const variable = String(issue?.path[0] ?? "configuration");
    throw new ConfigError(variable, issue?.message ?? "is invalid");
  }
  const vars = result.data;
  return {
    cooldownSeconds: vars.COOLDOWN_SECONDS,
    compactionDelayMs: vars.COMPACTION_DELAY_MS,
    sessionListReportMs: vars.SESSION_LIST_REPORT_MS,
    sessionRetentionMs:
      vars.SESSION_RETENTION_DAYS > 0 ? vars.SESSION_RETENTION_DAYS * DAY_MS : undefined,
    corsOrigins: vars.CORS_ORIGINS,
    openaiBaseUrl: vars.OPENAI_BASE_URL,
    anthropicBaseUrl: vars.ANTHROPIC_BASE_URL,
    gatewayUpstreams: vars.GATEWAY_UPSTREAMS,
    gatewayTimeoutMs: vars.GATEWAY_TIMEOUT_MS,
    gatewayStreamIdleTimeoutMs: vars.GATEWAY_STREAM_IDLE_TIMEOUT_MS,
    gatewayKeepAliveMs: vars.GATEWAY_KEEPALIVE_MS,
    summarizer: summarizerOf(vars, env.AI !== undefined),
    gatewayUserTokensPerDay:
      vars.GATEWAY_USER_TOKENS_PER_DAY === undefined ||
      Number(vars.GATEWAY_USER_TOKENS_PER_DAY) === 0
        ? undefined
        : Number(vars.GATEWAY_USER_TOKENS_PER_DAY),
    jwtJwksUrl: vars.JWT_JWKS_URL,
    jwtIssuer: vars.JWT_ISSUER,
    jwtAudience: vars.JWT_AUDIENCE,
  };
}

/** Parsed once per `env` object (an isolate keeps one; a test that swaps bindings gets a new parse). */
const parsed = new WeakMap<object, WorkerConfig | ConfigError>();

/** The configuration in `env`, parsed on first use; throws the same `ConfigError` every time it is bad. */
export function workerConfig(env: Env): WorkerConfig {
  let config = parsed.get(env);
  if (config === undefined) {
    try {
      config = parseWorkerConfig(env);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      config = error;
    }
    parsed.set(env, config);
  }
  if (config instanceof ConfigError) throw config;
  return config;
}
