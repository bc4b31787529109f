/**
 * @module scripts/dev-port
 * The port `wrangler dev` listens on for the arguments `pnpm start` passes
 * it, so the printed example calls the server that actually runs.
 */

/** Wrangler's default for `wrangler dev` (no `dev.port` is set in wrangler.jsonc). */
export const DEFAULT_DEV_PORT = 8787;

/** The port of `--port N` or `--port=N` in `args` (the last one wins, as in wrangler), else 8787. */
export function devPort(args: readonly string[]): number {
  let port = DEFAULT_DEV_PORT;
  args.forEach((arg, index) => {
    const value = arg.startsWith("--port=")
      ? arg.slice("--port=".length)
      : arg === "--port"
        ? args[index + 1]
        : undefined;
    if (value !== undefined && /^\d+$/.test(value)) port = Number(value);
  });
  return port;
}
