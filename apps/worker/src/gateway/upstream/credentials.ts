/**
 * @module gateway/upstream/credentials
 * Who a gateway request is, and which key goes upstream. With
 * `X-Condense-Key` (an API key or a JWT, as for the rest of the API) the
 * request's `Authorization` (or Anthropic's `x-api-key`, Gemini's
 * `x-goog-api-key` or `?key=`) is the caller's
 * provider key and is passed upstream untouched. Without it, `Authorization`
 * (or, for an SDK that sends its key as `x-api-key`, that header) is the
 * Condense credential, and the upstream gets the deployment's own key for it.
 * On a local deployment (`gateway/local-user`) a credential that is not a
 * Condense key is the agent's provider key instead. A provider key is never stored, logged or echoed: it goes to the configured
 * upstream and nowhere else. Checked by the gateway routes' middleware, before
 * their body is read.
 */

import type { MiddlewareHandler } from "hono";
import { ApiError } from "../../api/errors";
import type { AppEnv } from "../../http/app-env";
import { authenticate } from "../../http/auth";
import type { ProtocolName } from "../protocols/protocol";
import { localGatewayUser } from "./local-user";
import {
  deploymentKey,
  keyVariable,
  resolveUpstream,
  type Upstream,
  unknownUpstream,
} from "./upstreams";

export const CONDENSE_KEY_HEADER = "X-Condense-Key";

export interface GatewayCredentials {
  userId: string;
  /** The headers that authenticate the request upstream. */
  upstreamAuth: Record<string, string>;
  /** Whether those hold the deployment's own key (else the caller's). */
  deploymentKey: boolean;
}

function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

async function condenseUser(env: Env, token: string | undefined, where: string): Promise<string> {
  try {
    return await authenticate(env, token === undefined ? undefined : `Bearer ${token}`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      throw new ApiError(
        401,
        "unauthorized",
        token === undefined
          ? "send your Condense API key or JWT in `X-Condense-Key` (your provider key then goes in `Authorization`), or in `Authorization: Bearer` when the deployment holds the provider key"
          : `the Condense credential in ${where} is not valid: ${error.message.replace(/^invalid bearer token: /, "")}`,
        null,
        error.headers,
      );
    }
    throw error;
  }
}

function deploymentAuth(key: string, protocol: ProtocolName): Record<string, string> {
  if (protocol === "gemini") return { [GEMINI_KEY_HEADER]: key };
  return protocol === "anthropic" ? { "x-api-key": key } : { Authorization: `Bearer ${key}` };
}

/** The header Gemini's clients send their key in (or in the `key` query parameter). */
const GEMINI_KEY_HEADER = "x-goog-api-key";

/** The header a protocol's SDK sends its key in when not as `Authorization: Bearer`. */
function apiKeyHeader(protocol: ProtocolName): string {
  return protocol === "gemini" ? GEMINI_KEY_HEADER : "x-api-key";
}

export async function gatewayCredentials(
  env: Env,
  headers: Headers,
  upstream: Upstream,
  protocol: ProtocolName,
  url: string,
): Promise<GatewayCredentials> {
  const authorization = headers.get("Authorization") ?? undefined;
  const keyHeader = apiKeyHeader(protocol);
  const apiKey = headers.get(keyHeader) ?? undefined;
  const condenseKey = headers.get(CONDENSE_KEY_HEADER)?.trim();
  if (condenseKey !== undefined && condenseKey !== "") {
    const userId = await condenseUser(env, condenseKey, CONDENSE_KEY_HEADER);
    const passed: Record<string, string> = {};
    if (authorization !== undefined) passed.Authorization = authorization;
    if (apiKey !== undefined) passed[keyHeader] = apiKey;
    if (Object.keys(passed).length > 0) {
      return { userId, upstreamAuth: passed, deploymentKey: false };
    }
    const own = deploymentKey(env, upstream);
    if (own === undefined) throw noProviderKey(upstream);
    return { userId, upstreamAuth: deploymentAuth(own, protocol), deploymentKey: true };
  }
  const token = bearerToken(authorization) ?? apiKey;
  const local = localGatewayUser(env, url);
  if (local !== undefined) {
    const localCredentials = await localAgent(env, token, upstream, protocol, local, {
      authorization,
      apiKey,
    });
    if (localCredentials !== undefined) return localCredentials;
  }
  const userId = await condenseUser(
    env,
    token,
    authorization !== undefined ? "Authorization" : keyHeader,
  );
  const own = deploymentKey(env, upstream);
  if (own === undefined) throw noProviderKey(upstream);
  return { userId, upstreamAuth: deploymentAuth(own, protocol), deploymentKey: true };
}

/**
 * A local deployment's request whose credential is not a Condense key: the local user's, sent
 * upstream with the deployment's key, else with the agent's own. Undefined for a Condense key.
 */
async function localAgent(
  env: Env,
  token: string | undefined,
  upstream: Upstream,
  protocol: ProtocolName,
  user: string,
  sent: { authorization: string | undefined; apiKey: string | undefined },
): Promise<GatewayCredentials | undefined> {
  if (token !== undefined) {
    try {
      await authenticate(env, `Bearer ${token}`);
      return undefined;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
    }
  }
  const own = deploymentKey(env, upstream);
  if (own !== undefined) {
    return { userId: user, upstreamAuth: deploymentAuth(own, protocol), deploymentKey: true };
  }
  const passed: Record<string, string> = {};
  if (sent.authorization !== undefined) passed.Authorization = sent.authorization;
  // In the header it was read from: Gemini's key is not read from `x-api-key`.
  if (sent.apiKey !== undefined) passed[apiKeyHeader(protocol)] = sent.apiKey;
  if (Object.keys(passed).length === 0) throw noProviderKey(upstream);
  return { userId: user, upstreamAuth: passed, deploymentKey: false };
}

function noProviderKey(upstream: Upstream): ApiError {
  return new ApiError(
    401,
    "unauthorized",
    `this deployment holds no key for upstream ${JSON.stringify(upstream.name)} (${keyVariable(upstream.name)}): send your Condense key in \`X-Condense-Key\` and your provider key in \`Authorization\` (or \`x-api-key\`)`,
  );
}

/**
 * A gateway route's authentication, as its middleware: the upstream named in the path (404
 * `unknown_upstream` for a name the deployment does not configure), then the caller's credentials.
 * Sets `userId` and `upstream` for the handler.
 */
export function gatewayAuth(protocol: ProtocolName): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const name = c.req.param("upstream") ?? "";
    const upstream = resolveUpstream(c.env, name);
    if (upstream === undefined) throw unknownUpstream(c.env, name);
    const headers = protocol === "gemini" ? withQueryKey(c.req.raw) : c.req.raw.headers;
    const credentials = await gatewayCredentials(c.env, headers, upstream, protocol, c.req.url);
    c.set("userId", credentials.userId);
    c.get("log").user = credentials.userId;
    c.set("upstream", {
      baseUrl: upstream.baseUrl,
      auth: credentials.upstreamAuth,
      deploymentKey: credentials.deploymentKey,
    });
    await next();
  };
}

/** Gemini's clients may send their key as `?key=`: read as the `x-goog-api-key` header would be. */
function withQueryKey(request: Request): Headers {
  const key = new URL(request.url).searchParams.get("key");
  if (key === null || request.headers.has(GEMINI_KEY_HEADER)) return request.headers;
  const headers = new Headers(request.headers);
  headers.set(GEMINI_KEY_HEADER, key);
  return headers;
}
