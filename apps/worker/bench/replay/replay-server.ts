/**
 * @module bench/replay/replay-server
 * What a replay bench runs against: the scripted upstream (`test/support/gateway-upstream`) and the
 * Worker under `wrangler dev`, its gateway pointed at that upstream as `bench`, background
 * compactions at once (`COMPACTION_DELAY_MS` 0). A replay sends a session's turns (and its status
 * polls) as fast as the Worker answers, far above the deployment's per-user RATE_LIMITER:
 * `wrangler dev` runs a copy of the configuration whose limit no replay reaches (as the workerd
 * tests raise it), beside the original so its relative paths still hold, named for this process
 * so two benches can run at once. Stopped by a signal, the bench stops `wrangler dev` (its own
 * process group) on the way out.
 */

import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startGatewayUpstream } from "../../test/support/gateway-upstream.ts";
import { startWranglerDev } from "../../test-e2e/wrangler-dev.ts";
import { workerRoot } from "./corpus.ts";
import type { GatewayTarget } from "./gateway-replay.ts";

const KEY = "replay-bench-key";

export interface ReplayServer {
  target: GatewayTarget;
  stop(): Promise<void>;
}

export async function startReplayServer(): Promise<ReplayServer> {
  const upstream = await startGatewayUpstream();
  const benchConfig = join(workerRoot, `wrangler.bench-${process.pid}.jsonc`);
  const configured = readFileSync(join(workerRoot, "wrangler.jsonc"), "utf8");
  const unlimited = configured.replace(/("simple":\s*\{\s*"limit":\s*)\d+/, "$11000000000");
  if (unlimited === configured) throw new Error("wrangler.jsonc: no RATE_LIMITER limit to raise");
  writeFileSync(benchConfig, unlimited);
  let server: Awaited<ReturnType<typeof startWranglerDev>>;
  try {
    server = await startWranglerDev({
      workerDir: workerRoot,
      config: benchConfig,
      vars: {
        API_KEYS: `bench:${KEY}`,
        COMPACTION_DELAY_MS: "0",
        GATEWAY_UPSTREAMS: `bench=${upstream.origin}/v1`,
        GATEWAY_KEY_BENCH: "sk-bench-upstream",
      },
    });
  } catch (error) {
    rmSync(benchConfig, { force: true });
    await upstream.close();
    throw error;
  }
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    try {
      await server.stop();
      await upstream.close();
    } finally {
      rmSync(benchConfig, { force: true });
    }
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      void stop().finally(() => process.exit(130));
    });
  }
  return { target: { base: server.baseUrl, key: KEY, upstreamName: "bench", upstream }, stop };
}
