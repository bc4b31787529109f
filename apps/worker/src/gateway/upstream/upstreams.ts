/**
 * @module gateway/upstream/upstreams
 * The upstreams a deployment configures, by name: never a URL from a request.
 * `openai` (`OPENAI_BASE_URL`) and `anthropic` (`ANTHROPIC_BASE_URL`) are built
 * in; `GATEWAY_UPSTREAMS` adds more, or moves a built-in one, as comma- or
 * newline-separated `name=baseURL` entries. Each may have the deployment's
 * own key: `GATEWAY_KEY_<NAME>` (the name in capitals, other characters as
 * `_`), and for the built-in names `OPENAI_API_KEY` and `ANTHROPIC_API_KEY`.
 */

import { ApiError } from "../../api/errors";
import { workerConfig } from "../../config/worker-config";

export interface Upstream {
  name: string;
  /** Without a trailing slash; a request's path after `/v1/gateway/{name}` is appended to it. */
  baseUrl: string;
}

/**
 * Every configured upstream by name (`config/worker-config` checked them: an entry that is not
 * `name=http(s)-URL` is a configuration error).
 */
export function configuredUpstreams(env: Env): Map<string, string> {
  const config = workerConfig(env);
  return new Map<string, string>([
    ["openai", config.openaiBaseUrl],
    ["anthropic", config.anthropicBaseUrl],
    ...config.gatewayUpstreams,
  ]);
}

export function resolveUpstream(env: Env, name: string): Upstream | undefined {
  const baseUrl = configuredUpstreams(env).get(name.toLowerCase());
  return baseUrl === undefined ? undefined : { name: name.toLowerCase(), baseUrl };
}

/** The 404 for a name no upstream of the deployment has, naming those it has. */
export function unknownUpstream(env: Env, name: string): ApiError {
  const names = [...configuredUpstreams(env).keys()].join(", ");
  return new ApiError(
    404,
    "unknown_upstream",
    `no upstream named ${JSON.stringify(name)} on this deployment; use one of: ${names} (GATEWAY_UPSTREAMS adds more)`,
  );
}

/** The name of the variable holding the deployment's own key for upstream `name`. */
export function keyVariable(name: string): string {
  return `GATEWAY_KEY_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

/** The deployment's own key for `upstream`, if it has one. */
export function deploymentKey(env: Env, upstream: Upstream): string | undefined {
  const vars = env as unknown as Record<string, unknown>;
  const candidates = [vars[keyVariable(upstream.name)]];
  if (upstream.name === "openai") candidates.push(env.OPENAI_API_KEY);
  if (upstream.name === "anthropic") candidates.push(env.ANTHROPIC_API_KEY);
  for (const candidate of candidates) {
    if (typeof candidate === "string" && candidate.trim() !== "") return candidate.trim();
  }
  return undefined;
}
