/**
 * @module scripts/dev-port
 * The arguments `pnpm start` passes to `wrangler dev`, and the port it listens
 * on for them, so the printed example calls the server that actually runs.
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

/**
 * `pnpm start`'s arguments for `wrangler dev`: without the `--` that `pnpm start -- --port N` passes
 * on, after which wrangler reads nothing as an option (it served on 8787 while the printed lines
 * named N).
 */
export function wranglerDevArgs(args: readonly string[]): string[] {
  return args[0] === "--" ? args.slice(1) : [...args];
}
