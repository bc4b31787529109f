/**
 * @module gateway/upstream/local-user
 * The local deployment's gateway user (`pnpm start`): an agent that exports
 * only its base URL sends its own provider key where a deployment reads the
 * Condense credential. With `GATEWAY_LOCAL_USER` set and the request addressed
 * to a loopback host, a gateway request whose credential is not a Condense key
 * belongs to that user; the upstream gets the deployment's own key when it
 * has one (`pnpm start` takes `ANTHROPIC_API_KEY` / `OPENAI_API_KEY` from its
 * environment), else the agent's own key, passed through. A request to any
 * other host never gets it: a deployment reached by its public name cannot be
 * opened by this variable, even when it is set by mistake.
 */

/** Loopback names a local `wrangler dev` answers on. */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The user a credential-less gateway request is, on a local deployment; undefined elsewhere. */
export function localGatewayUser(env: Env, url: string): string | undefined {
  const user = env.GATEWAY_LOCAL_USER?.trim();
  if (user === undefined || user === "") return undefined;
  return LOOPBACK.has(new URL(url).hostname) ? user : undefined;
}
