/**
 * @module bench/worker-profile
 * `node bench/bench.ts profile [append|search|compaction|gateway …]`: where the Worker's time goes
 * on the hot paths the comparison mode times. One `wrangler dev`, the V8 CPU profiler of its
 * workerd (the DevTools protocol on its inspector port) started around each path's requests: a
 * `.cpuprofile` per path in `.bench/profiles/` (open it in Chrome's DevTools) and the functions
 * with the most self time printed.
 */

import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  agentHistory,
  CONTEXT_WINDOW,
  HISTORY_TOKENS,
  PROTOCOLS,
  startInstantUpstream,
  UPSTREAM_KEY,
} from "./gateway-latency.ts";
import {
  APPEND_BATCH,
  agentSession,
  api,
  appendAll,
  corpusSession,
  corpusTranscripts,
  ISSUE_SESSION_CHARS,
  KEY,
  root,
  searchQueries,
  startWorker,
  withoutRateLimit,
} from "./harness.ts";

/** Gateway turns profiled (`BENCH_PROFILE_TURNS`): some 150 give a stable count of samples. */
const PROFILED_TURNS = Number(process.env.BENCH_PROFILE_TURNS ?? 30);

interface ProfileNode {
  id: number;
  children?: number[];
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A DevTools protocol session with the Worker's isolate. */
async function inspect(port: number): Promise<{
  send(method: string, params?: unknown): Promise<unknown>;
  close(): void;
}> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as Array<{
    webSocketDebuggerUrl: string;
    title?: string;
  }>;
  const target = targets.find((t) => !/inspector|assets/i.test(t.title ?? "")) ?? targets[0];
  if (target === undefined) throw new Error("no inspector target");
  // wrangler's inspector proxy accepts DevTools' own origin (undici's WebSocket takes headers).
  const socket = new WebSocket(target.webSocketDebuggerUrl, {
    headers: { Origin: "https://devtools.devprod.cloudflare.dev" },
  } as unknown as string[]);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve);
    socket.addEventListener("error", () =>
      reject(new Error(`inspector ${target.webSocketDebuggerUrl}`)),
    );
  });
  let next = 0;
  const waiting = new Map<number, (value: unknown) => void>();
  socket.addEventListener("message", (event: MessageEvent) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result);
  });
  return {
    send(method, params) {
      const id = ++next;
      socket.send(JSON.stringify({ id, method, params }));
      return new Promise((resolve) => waiting.set(id, resolve));
    },
    close: () => socket.close(),
  };
}

function summary(profile: Profile, top = 25): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let total = 0;
  for (const [i, id] of profile.samples.entries()) {
    const frame = byId.get(id)?.callFrame;
    const delta = profile.timeDeltas[i] ?? 0;
    total += delta;
    const where =
      frame === undefined
        ? "?"
        : `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-2).join("/")}:${frame.lineNumber + 1}`;
    self.set(where, (self.get(where) ?? 0) + delta);
  }
  // Inclusive time: each sample counted once for every function on its stack.
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  for (const [i, id] of profile.samples.entries()) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame === undefined || frame.url === "") continue;
      seen.add(
        `${frame.functionName || "(anonymous)"} ${frame.url.split("/").slice(-1)[0]}:${frame.lineNumber + 1}`,
      );
    }
    for (const where of seen)
      inclusive.set(where, (inclusive.get(where) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const inclusiveRows = [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, 40);
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
  return inclusiveRows
    .map(
      ([where, us]) =>
        `${(us / 1000).toFixed(1).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}% incl.  ${where}`,
    )
    .concat(["self:"])
    .concat(
      rows.map(
        ([where, us]) =>
          `${(us / 1000).toFixed(1).padStart(8)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${where}`,
      ),
    )
    .join("\n");
}

export async function profileWorker(paths: string[]): Promise<void> {
  const wanted = (name: string) => paths.length === 0 || paths.includes(name);
  const upstream = await startInstantUpstream();
  const config = join(root, "wrangler.bench-profile.jsonc");
  const configured = readFileSync(join(root, "wrangler.jsonc"), "utf8");
  // Not minified, so that the profile names the functions; no rate limit (`withoutRateLimit`).
  writeFileSync(
    config,
    withoutRateLimit(configured).replace(/"minify":\s*true/, '"minify": false'),
  );
  const worker = await startWorker(
    {
      COMPACTION_DELAY_MS: "3600000",
      GATEWAY_UPSTREAMS: `bench=${upstream.url}`,
      GATEWAY_KEY_BENCH: UPSTREAM_KEY,
    },
    undefined,
    config,
  );
  const folder = join(root, "../../.bench/profiles");
  mkdirSync(folder, { recursive: true });
  let devtools: Awaited<ReturnType<typeof inspect>> | undefined;
  const profiled = async (name: string, work: () => Promise<void>) => {
    devtools ??= await inspect(worker.inspectorPort);
    await devtools.send("Profiler.enable");
    await devtools.send("Profiler.setSamplingInterval", { interval: 100 });
    await devtools.send("Profiler.start");
    const started = performance.now();
    await work();
    const wall = performance.now() - started;
    const { profile } = (await devtools.send("Profiler.stop")) as { profile: Profile };
    const file = join(folder, `${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    console.log(`\n## ${name}: ${wall.toFixed(0)} ms wall; ${file}\n${summary(profile)}`);
  };
  try {
    const { transcripts } = corpusTranscripts();
    const messages = corpusSession(transcripts, 200_000);
    await appendAll(worker.base, "profile-200k", messages);
    const stream = transcripts.flat().slice(0, 400);
    const append = (i: number) =>
      api(worker.base, "POST", "/v1/sessions/profile-200k/messages", {
        model: "gpt-4o",
        messages: [stream[i % stream.length]],
      });
    for (let i = 0; i < 10; i++) await append(i);
    if (wanted("append"))
      await profiled("append", async () => {
        for (let i = 10; i < 110; i++) await append(i);
      });
    const queries = searchQueries(messages, 200);
    const search = (query: string | undefined) =>
      api(
        worker.base,
        "GET",
        `/v1/sessions/profile-200k/search?q=${encodeURIComponent(query ?? "x")}&limit=10`,
      );
    for (const query of queries.slice(0, 10)) await search(query);
    if (wanted("search"))
      await profiled("search", async () => {
        for (const query of queries.slice(10, 110)) await search(query);
      });
    if (wanted("compaction")) {
      const ids = [1, 2, 3].map((n) => `profile-compact-${n}`);
      for (const [n, id] of ids.entries()) {
        const session = agentSession(n + 1, ISSUE_SESSION_CHARS);
        for (let from = 0; from < session.length; from += APPEND_BATCH)
          await api(worker.base, "POST", `/v1/sessions/${id}/messages`, {
            model: "gpt-4o",
            messages: session.slice(from, from + APPEND_BATCH),
          });
      }
      await profiled("compaction", async () => {
        for (const id of ids) await api(worker.base, "POST", `/v1/sessions/${id}/compact`, {});
      });
    }
    if (wanted("gateway")) {
      const protocol = PROTOCOLS[0];
      if (protocol === undefined) throw new Error("no protocol");
      const history = agentHistory(HISTORY_TOKENS);
      const turn = async () => {
        const response = await fetch(`${worker.base}/v1/gateway/bench${protocol.path}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...protocol.auth(KEY),
            "X-Condense-Session": "profile-gateway",
            "X-Condense-Context-Window": String(CONTEXT_WINDOW),
          },
          body: JSON.stringify(protocol.body(history, false)),
        });
        await response.text();
        history.push({ role: "assistant", content: upstream.answer });
        history.push({ role: "user", content: `Continue with step ${history.length}.` });
      };
      for (let i = 0; i < 5; i++) await turn();
      await profiled("gateway", async () => {
        for (let i = 0; i < PROFILED_TURNS; i++) await turn();
      });
    }
  } finally {
    devtools?.close();
    worker.child.kill("SIGTERM");
    upstream.close();
    rmSync(worker.dir, { recursive: true, force: true });
    rmSync(config, { force: true });
  }
}
