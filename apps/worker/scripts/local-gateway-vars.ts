/**
 * @module scripts/local-gateway-vars
 * The variables `pnpm start` gives the local gateway: the provider keys of the
 * shell it runs in (the upstreams' keys) and `GATEWAY_LOCAL_USER`, as env-file
 * lines.
 */

/** The shell variables read as upstream keys, with the gateway variable each sets. */
const PROVIDER_KEYS = [
  ["ANTHROPIC_API_KEY", "ANTHROPIC_API_KEY"],
  ["OPENAI_API_KEY", "OPENAI_API_KEY"],
  ["GEMINI_API_KEY", "GATEWAY_KEY_GEMINI"],
] as const;

export interface LocalGatewayVars {
  /** The shell variables taken. */
  keys: string[];
  /** Env-file lines. */
  lines: string;
}

/** Quoted for a dotenv file: a value with a quote or newline would end the line early. */
function dotenvValue(value: string): string {
  return JSON.stringify(value);
}

/** Google's API, the upstream Gemini CLI's recipe names (`/v1/gateway/gemini`): no built-in one. */
const GEMINI_UPSTREAM = "gemini=https://generativelanguage.googleapis.com";

/**
 * The lines for the shell's keys and the local user, and the `gemini` upstream unless `devVars`
 * (`.dev.vars`, read before these lines, which would override it) sets the upstreams itself.
 */
export function localGatewayVars(
  shell: Record<string, string | undefined>,
  user: string,
  devVars = "",
): LocalGatewayVars {
  const keys: string[] = [];
  const lines = [`GATEWAY_LOCAL_USER=${dotenvValue(user)}`];
  if (!/^\s*GATEWAY_UPSTREAMS\s*=/m.test(devVars)) {
    lines.push(`GATEWAY_UPSTREAMS=${dotenvValue(GEMINI_UPSTREAM)}`);
  }
  for (const [from, to] of PROVIDER_KEYS) {
    const value = shell[from]?.trim();
    if (value === undefined || value === "") continue;
    keys.push(from);
    lines.push(`${to}=${dotenvValue(value)}`);
  }
  return { keys, lines: `${lines.join("\n")}\n` };
}
