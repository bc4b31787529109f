/**
 * @module bench/request-floor
 * `node bench/bench.ts floor`: what any request costs under `wrangler dev` on this machine, beside
 * what Condense's own requests cost, in one interleaved run, so that an append's or a search's
 * figure can be read against the floor the runtime sets (issue 29). Two Workers under the same
 * `wrangler dev` and flags: the pass-through (`bench/pass-through`), whose `/healthz` is a hello
 * world, and Condense; the requests alternate, the order flipped every time:
 * - hello world: the pass-through's `/healthz`;
 * - Condense's `/healthz`: the middleware chain and the request's log line, no authentication;
 * - a request to a session's object doing little (`DO_NOTHING` of a one-message session, as the
 *   search's peer): authentication, the stub's round trip (the rate limit is not bound in benches,
 *   see `unlimitedConfig`; `BENCH_RATE_LIMITER=bound` adds wrangler dev's emulation of it);
 * - an append of one short message to that session.
 * Each with p50/p99 wall time and the CPU its Worker's processes used per request (from /proc),
 * which a busy machine inflates less than wall time.
 */

import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import {
  cpuMs,
  DO_NOTHING,
  KEY,
  ms,
  type Percentiles,
  percentiles,
  root,
  startWorker,
} from "./harness.ts";

const REQUESTS = Number(process.env.BENCH_FLOOR_REQUESTS ?? 200);
const WARMUP = 20;

/** The requests measured, by what they stand for. */
export type FloorRequest = "hello world" | "healthz" | "session object" | "append";

interface Probe {
  request: FloorRequest;
  label: string;
  pid: number | undefined;
  send(i: number): Promise<Response>;
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");

/** One kind of request's figures, as `requestFloor` prints them (milliseconds). */
export interface FloorFigures extends Percentiles {
  request: FloorRequest;
  /** CPU a request, its Worker's processes. */
  cpu: number;
}

export async function requestFloor(): Promise<FloorFigures[]> {
  const workers = await Promise.allSettled([
    startWorker(
      { UPSTREAM_URL: "http://127.0.0.1:9" },
      undefined,
      join(root, "bench/pass-through/wrangler.jsonc"),
    ),
    startWorker({ COMPACTION_DELAY_MS: "3600000" }),
  ]);
  try {
    const [hello, condense] = workers.map((outcome) => {
      if (outcome.status === "rejected") throw outcome.reason;
      return outcome.value;
    });
    if (hello === undefined || condense === undefined) throw new Error("no Worker started");
    const headers = { Authorization: `Bearer ${KEY}`, "Content-Type": "application/json" };
    const session = `${condense.base}/v1/sessions/floor`;
    const appended = await fetch(`${session}/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify({ messages: [{ role: "user", content: "hello" }] }),
    });
    if (!appended.ok) throw new Error(`append: ${appended.status} ${await appended.text()}`);
    const probes: Probe[] = [
      {
        request: "hello world",
        label: "hello world (pass-through /healthz)",
        pid: hello.child.pid,
        send: () => fetch(`${hello.base}/healthz`),
      },
      {
        request: "healthz",
        label: "Condense /healthz",
        pid: condense.child.pid,
        send: () => fetch(`${condense.base}/healthz`),
      },
      {
        request: "session object",
        label: `session object, ${DO_NOTHING.label}`,
        pid: condense.child.pid,
        send: () => fetch(`${condense.base}${DO_NOTHING.path("floor")}`, { headers }),
      },
      {
        request: "append",
        label: "append of one short message",
        pid: condense.child.pid,
        send: (i) =>
          fetch(`${session}/messages`, {
            method: "POST",
            headers,
            body: JSON.stringify({
              messages: [{ role: "user", content: `message ${i}: ${"lorem ipsum ".repeat(10)}` }],
            }),
          }),
      },
    ];
    const times = probes.map((): number[] => []);
    const cpu = probes.map(() => 0);
    const loadBefore = load();
    for (let i = 0; i < WARMUP + REQUESTS; i++) {
      const order = i % 2 === 0 ? probes : [...probes].reverse();
      for (const probe of order) {
        const at = probes.indexOf(probe);
        const cpuBefore = cpuMs(probe.pid);
        const started = performance.now();
        const response = await probe.send(i);
        await response.text();
        const wall = performance.now() - started;
        if (!response.ok) throw new Error(`${probe.label}: ${response.status}`);
        if (i < WARMUP) continue;
        times[at]?.push(wall);
        cpu[at] = (cpu[at] ?? 0) + cpuMs(probe.pid) - cpuBefore;
      }
    }
    console.log(
      `request floor under wrangler dev, ${REQUESTS} requests each after ${WARMUP} warm-up, interleaved (load average ${loadBefore} before, ${load()} after):`,
    );
    return probes.map((probe, at): FloorFigures => {
      const figures = {
        request: probe.request,
        ...percentiles(times[at] ?? []),
        cpu: (cpu[at] ?? 0) / REQUESTS,
      };
      console.log(
        `  ${probe.label}: p50 ${ms(figures.p50)}, p99 ${ms(figures.p99)}; CPU ${ms(figures.cpu)} a request (its wrangler dev's processes)`,
      );
      return figures;
    });
  } finally {
    for (const outcome of workers)
      if (outcome.status === "fulfilled") {
        outcome.value.child.kill("SIGTERM");
        rmSync(outcome.value.dir, { recursive: true, force: true });
      }
  }
}
