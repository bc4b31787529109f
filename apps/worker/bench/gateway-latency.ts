/**
 * @module bench/gateway-latency
 * The gateway's own time: an agent's turn with a 150k-token history, sent
 * whole, through `/v1/gateway` with a session, against the same request sent
 * through a pass-through Worker (`bench/pass-through`: forwards and does
 * nothing else) under the same `wrangler dev`, so that the runtime's carrying
 * of the body is subtracted; and the same request sent straight to the
 * upstream, for reference. Chat Completions, Anthropic Messages and
 * Responses, each a session of its own; the three paths alternate turn by
 * turn (which goes first rotates), and the added time is taken pair by pair.
 * The upstream answers at once on loopback (JSON; a short stream for the
 * time-to-first-byte turns), so what is measured is the path to it. Beside the
 * wall times, the CPU time each Worker's processes (`wrangler dev` and its
 * workerd) used per turn, read from /proc: the gateway's own work, which a
 * busy machine does not inflate as it inflates wall time.
 * `BENCH_GATEWAY_TURNS` sets the measured turns per protocol (default 300);
 * `BENCH_GATEWAY_PROTOCOLS` the protocols, by format (`openai,anthropic,responses`, the default),
 * so that issue 29's figure (100 Chat Completions turns) is `BENCH_GATEWAY_TURNS=100
 * BENCH_GATEWAY_PROTOCOLS=openai pnpm bench gateway`. The machine's load average is printed
 * beside each protocol's figures: wall times on a busy machine are several times a quiet one's.
 */

import { rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { join } from "node:path";
import {
  type ChatMessage,
  countMessageTokens,
  fromCanonical,
  type MessageFormat,
} from "@condense/core";
import {
  agentSession,
  cpuMs,
  KEY,
  ms,
  type Percentiles,
  percentile,
  percentiles,
  root,
  startWorker,
} from "./harness.ts";

/** Which turns `gatewayLatency` takes; by default from `BENCH_GATEWAY_TURNS` and `BENCH_GATEWAY_PROTOCOLS`. */
export interface GatewayRun {
  /** Measured turns per protocol. */
  turns: number;
  /** The protocols, by format; all of them when undefined. */
  formats?: readonly string[] | undefined;
  /** Whether Chat Completions is also measured streamed (the time to the first byte). */
  streamed: boolean;
}

const FROM_ENVIRONMENT: GatewayRun = {
  turns: Number(process.env.BENCH_GATEWAY_TURNS ?? 300),
  formats: process.env.BENCH_GATEWAY_PROTOCOLS?.split(",").map((name) => name.trim()),
  streamed: true,
};
const WARMUP_TURNS = 5;
const STREAM_TURNS = 60;
export const HISTORY_TOKENS = 150_000;
/** Stated to the gateway so that no compaction runs: the turn measured is the steady one. */
export const CONTEXT_WINDOW = 1_000_000;
export const UPSTREAM_KEY = "sk-bench-upstream";

export interface Protocol {
  name: string;
  /** The route after `/v1/gateway/{upstream}`, also the upstream's path. */
  path: string;
  format: MessageFormat;
  model: string;
  /** The request body for this history. */
  body(history: ChatMessage[], stream: boolean): Record<string, unknown>;
  /** The upstream's authentication header. */
  auth(key: string): Record<string, string>;
}

export const PROTOCOLS: Protocol[] = [
  {
    name: "Chat Completions",
    path: "/chat/completions",
    format: "openai",
    model: "gpt-4.1",
    body: (history, stream) => ({
      model: "gpt-4.1",
      messages: fromCanonical(history, "openai").messages,
      ...(stream ? { stream: true } : {}),
    }),
    auth: (key) => ({ Authorization: `Bearer ${key}` }),
  },
  {
    name: "Anthropic Messages",
    path: "/v1/messages",
    format: "anthropic",
    model: "claude-sonnet-4-5",
    body: (history, stream) => {
      const { messages, system } = fromCanonical(history, "anthropic");
      return {
        model: "claude-sonnet-4-5",
        max_tokens: 4096,
        ...(system !== undefined ? { system } : {}),
        messages,
        ...(stream ? { stream: true } : {}),
      };
    },
    auth: (key) => ({ "x-api-key": key, "anthropic-version": "2023-06-01" }),
  },
  {
    name: "Responses",
    path: "/responses",
    format: "responses",
    model: "gpt-4.1",
    body: (history, stream) => ({
      model: "gpt-4.1",
      input: fromCanonical(history, "responses").messages,
      ...(stream ? { stream: true } : {}),
    }),
    auth: (key) => ({ Authorization: `Bearer ${key}` }),
  },
];

/** The answer of each protocol, JSON or as a short stream of server-sent events. */
function answerFor(
  path: string,
  n: number,
  content: string,
  stream: boolean,
): { type: string; text: string } {
  const sse = (events: Array<[string | undefined, unknown]>) => ({
    type: "text/event-stream",
    text: events
      .map(
        ([event, data]) =>
          `${event === undefined ? "" : `event: ${event}\n`}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`,
      )
      .join(""),
  });
  const json = (value: unknown) => ({ type: "application/json", text: JSON.stringify(value) });
  if (path === "/v1/messages") {
    const message = {
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "text", text: content }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: HISTORY_TOKENS, output_tokens: 5 },
    };
    if (!stream) return json(message);
    return sse([
      ["message_start", { type: "message_start", message: { ...message, content: [] } }],
      [
        "content_block_start",
        { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      ],
      [
        "content_block_delta",
        { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: content } },
      ],
      ["content_block_stop", { type: "content_block_stop", index: 0 }],
      [
        "message_delta",
        {
          type: "message_delta",
          delta: { stop_reason: "end_turn", stop_sequence: null },
          usage: { output_tokens: 5 },
        },
      ],
      ["message_stop", { type: "message_stop" }],
    ]);
  }
  if (path === "/responses") {
    const response = {
      id: `resp_${n}`,
      object: "response",
      created_at: 1_700_000_000,
      status: "completed",
      model: "gpt-4.1",
      output: [
        {
          type: "message",
          id: `msg_${n}`,
          status: "completed",
          role: "assistant",
          content: [{ type: "output_text", text: content, annotations: [] }],
        },
      ],
      usage: { input_tokens: HISTORY_TOKENS, output_tokens: 5, total_tokens: HISTORY_TOKENS + 5 },
    };
    if (!stream) return json(response);
    return sse([
      ["response.created", { type: "response.created", response: { ...response, output: [] } }],
      ["response.completed", { type: "response.completed", response }],
    ]);
  }
  const base = { id: `chatcmpl-${n}`, created: 1_700_000_000, model: "gpt-4.1" };
  if (!stream) {
    return json({
      ...base,
      object: "chat.completion",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content, refusal: null },
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: HISTORY_TOKENS, completion_tokens: 5, total_tokens: HISTORY_TOKENS },
    });
  }
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({
    ...base,
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  return sse([
    [undefined, chunk({ role: "assistant", content }, null)],
    [undefined, chunk({}, "stop")],
    [undefined, "[DONE]"],
  ]);
}

export interface InstantUpstream {
  url: string;
  /** What the model says next, the same to every path, so that the agent's next history holds it. */
  answer: string;
  close(): void;
}

/** An upstream speaking the three protocols, answering every request at once once it is read whole. */
export function startInstantUpstream(): Promise<InstantUpstream> {
  let answers = 0;
  const upstream: InstantUpstream = { url: "", answer: "Noted.", close: () => server.close() };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { stream?: boolean };
      const answer = answerFor(request.url ?? "", ++answers, upstream.answer, body.stream === true);
      response.writeHead(200, { "content-type": answer.type });
      response.end(answer.text);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      upstream.url = `http://127.0.0.1:${port}`;
      resolve(upstream);
    });
  });
}

/** An agent's history of about `tokens` tokens: tool steps with long, distinct outputs. */
export function agentHistory(tokens: number): ChatMessage[] {
  const steps = agentSession() as unknown as ChatMessage[];
  const messages = steps.slice(0, 2);
  for (let i = 2; i + 2 < steps.length; i += 3) {
    messages.push(...steps.slice(i, i + 3));
    if (i % 30 === 2 && countMessageTokens(messages, "gpt-4.1") >= tokens) break;
  }
  return messages;
}

interface Path {
  name: "gateway" | "pass-through" | "direct";
  url: string;
  headers: Record<string, string>;
  /** The process serving it (`wrangler dev`), whose CPU time is counted with its descendants'. */
  pid?: number;
}

/** Sends `text` and reads the whole answer; its time, and the time to the answer's first byte. */
async function timed(
  path: Path,
  text: string,
): Promise<{ ms: number; firstByteMs: number; answer: string }> {
  const started = performance.now();
  const response = await fetch(path.url, {
    method: "POST",
    headers: { "content-type": "application/json", ...path.headers },
    body: text,
  });
  const reader = response.body?.getReader();
  let firstByteMs = Number.NaN;
  const parts: Uint8Array[] = [];
  for (;;) {
    const read = reader === undefined ? { done: true as const } : await reader.read();
    if (read.done) break;
    if (Number.isNaN(firstByteMs)) firstByteMs = performance.now() - started;
    parts.push(read.value);
  }
  const elapsed = performance.now() - started;
  const answer = Buffer.concat(parts).toString("utf8");
  if (!response.ok) throw new Error(`${path.name}: ${response.status} ${answer.slice(0, 300)}`);
  return { ms: elapsed, firstByteMs, answer };
}

const triple = (values: number[]) =>
  `p50 ${ms(percentile(values, 50))}, p95 ${ms(percentile(values, 95))}, p99 ${ms(percentile(values, 99))}`;

/** Turns of one protocol's session: each path in turn, the history growing by the answer. */
async function runProtocol(
  upstream: InstantUpstream,
  protocol: Protocol,
  paths: Path[],
  history: ChatMessage[],
  turns: number,
  stream: boolean,
): Promise<Map<Path["name"], { ms: number[]; firstByteMs: number[]; cpuMsPerTurn: number }>> {
  const times = new Map(
    paths.map((path) => [
      path.name,
      { ms: [] as number[], firstByteMs: [] as number[], cpuMsPerTurn: Number.NaN },
    ]),
  );
  const cpuAtStart = new Map<Path["name"], number>();
  for (let turn = 0; turn < WARMUP_TURNS + turns; turn++) {
    if (turn === WARMUP_TURNS) for (const path of paths) cpuAtStart.set(path.name, cpuMs(path.pid));
    const text = JSON.stringify(protocol.body(history, stream));
    upstream.answer = `Noted, step ${turn}.`;
    // Which path goes first rotates, so that none always meets a warmer loopback.
    const order = paths.map((_, i) => paths[(i + turn) % paths.length] as Path);
    for (const path of order) {
      const result = await timed(path, text);
      if (turn < WARMUP_TURNS) continue;
      const figures = times.get(path.name);
      figures?.ms.push(result.ms);
      figures?.firstByteMs.push(result.firstByteMs);
    }
    // The agent keeps the answer and adds its next message (the same every path got).
    history.push({ role: "assistant", content: upstream.answer });
    history.push({ role: "user", content: `Continue with step ${turn + 1}.` });
  }
  // What is still running (the answer's append, after the response) is counted too.
  await new Promise((resolve) => setTimeout(resolve, 500));
  for (const path of paths) {
    const figures = times.get(path.name);
    if (figures !== undefined)
      figures.cpuMsPerTurn = (cpuMs(path.pid) - (cpuAtStart.get(path.name) ?? Number.NaN)) / turns;
  }
  return times;
}

/** Per-turn differences a − b. */
const minus = (a: number[], b: number[]) => a.map((value, i) => value - (b[i] ?? Number.NaN));

/** One protocol's figures, as `gatewayLatency` prints them (milliseconds). */
export interface GatewayFigures {
  format: MessageFormat;
  turns: number;
  historyTokens: number;
  /** Added by the gateway over the pass-through, turn by turn. */
  added: Percentiles;
  passThrough: Percentiles;
  /** CPU per turn of each Worker's processes. */
  cpuGateway: number;
  cpuPassThrough: number;
  loadBefore: number;
  loadAfter: number;
}

export async function gatewayLatency(
  run: GatewayRun = FROM_ENVIRONMENT,
): Promise<GatewayFigures[]> {
  const upstream = await startInstantUpstream();
  const started = await Promise.allSettled([
    startWorker({
      GATEWAY_UPSTREAMS: `bench=${upstream.url}`,
      GATEWAY_KEY_BENCH: UPSTREAM_KEY,
      COMPACTION_DELAY_MS: "3600000",
    }),
    startWorker(
      { UPSTREAM_URL: upstream.url },
      undefined,
      join(root, "bench/pass-through/wrangler.jsonc"),
    ),
  ]);
  const [gateway, passThrough] = started.map((outcome) =>
    outcome.status === "fulfilled" ? outcome.value : undefined,
  );
  if (gateway === undefined || passThrough === undefined) {
    // One did not start: the other is stopped, not left running.
    for (const worker of [gateway, passThrough]) worker?.child.kill("SIGTERM");
    upstream.close();
    throw new Error("a bench Worker did not start", {
      cause: started.find((outcome) => outcome.status === "rejected")?.reason,
    });
  }
  try {
    const history = agentHistory(HISTORY_TOKENS);
    const tokens = countMessageTokens(history, "gpt-4.1");
    console.log(
      `gateway latency: a ${tokens}-token history of ${history.length} messages sent whole every turn, ${run.turns} turns per protocol after ${WARMUP_TURNS} warm-up turns; gateway (with a session) vs a pass-through Worker under the same wrangler dev, and directly; loopback upstream answering at once`,
    );
    const chosen = PROTOCOLS.filter(
      (protocol) => run.formats === undefined || run.formats.includes(protocol.format),
    );
    if (chosen.length === 0)
      throw new Error(
        `BENCH_GATEWAY_PROTOCOLS names no protocol: give some of ${PROTOCOLS.map((protocol) => protocol.format).join(",")}`,
      );
    const figures: GatewayFigures[] = [];
    for (const protocol of chosen) {
      const loadBefore = loadavg()[0] ?? Number.NaN;
      const paths = (session: string): Path[] => [
        {
          name: "gateway",
          url: `${gateway.base}/v1/gateway/bench${protocol.path}`,
          headers: {
            ...protocol.auth(KEY),
            "X-Condense-Session": session,
            "X-Condense-Context-Window": String(CONTEXT_WINDOW),
          },
          pid: gateway.child.pid,
        },
        {
          name: "pass-through",
          url: `${passThrough.base}/v1/gateway/bench${protocol.path}`,
          headers: protocol.auth(UPSTREAM_KEY),
          pid: passThrough.child.pid,
        },
        {
          name: "direct",
          url: `${upstream.url}${protocol.path}`,
          headers: protocol.auth(UPSTREAM_KEY),
        },
      ];
      const whole = await runProtocol(
        upstream,
        protocol,
        paths(`latency-${protocol.format}`),
        [...history],
        run.turns,
        false,
      );
      const through = whole.get("gateway")?.ms ?? [];
      const passed = whole.get("pass-through")?.ms ?? [];
      const direct = whole.get("direct")?.ms ?? [];
      const added = minus(through, passed);
      console.log(
        `  ${protocol.name} (load average ${loadBefore.toFixed(1)} before, ${(loadavg()[0] ?? Number.NaN).toFixed(1)} after):`,
      );
      console.log(`    gateway       ${triple(through)}`);
      console.log(`    pass-through  ${triple(passed)}`);
      console.log(`    direct        ${triple(direct)}`);
      console.log(
        `    added by the gateway over the pass-through, turn by turn: ${triple(added)} (goal p50 ≤ 15 ms, p99 ≤ 40 ms); difference of the percentiles: p50 ${ms(percentile(through, 50) - percentile(passed, 50))}, p99 ${ms(percentile(through, 99) - percentile(passed, 99))}`,
      );
      const cpuThrough = whole.get("gateway")?.cpuMsPerTurn ?? Number.NaN;
      const cpuPassed = whole.get("pass-through")?.cpuMsPerTurn ?? Number.NaN;
      console.log(
        `    CPU per turn (wrangler dev and workerd, user + system): gateway ${ms(cpuThrough)}, pass-through ${ms(cpuPassed)}, added ${ms(cpuThrough - cpuPassed)}`,
      );
      figures.push({
        format: protocol.format,
        turns: run.turns,
        historyTokens: tokens,
        added: percentiles(added),
        passThrough: percentiles(passed),
        cpuGateway: cpuThrough,
        cpuPassThrough: cpuPassed,
        loadBefore,
        loadAfter: loadavg()[0] ?? Number.NaN,
      });
      if (protocol.format !== "openai" || !run.streamed) continue;
      const streamed = await runProtocol(
        upstream,
        protocol,
        paths(`latency-stream-${protocol.format}`),
        [...history],
        STREAM_TURNS,
        true,
      );
      const firstThrough = streamed.get("gateway")?.firstByteMs ?? [];
      const firstPassed = streamed.get("pass-through")?.firstByteMs ?? [];
      console.log(
        `    streamed (${STREAM_TURNS} turns), time to the first byte: gateway p50 ${ms(percentile(firstThrough, 50))}, pass-through p50 ${ms(percentile(firstPassed, 50))}; added ${triple(minus(firstThrough, firstPassed))}`,
      );
    }
    return figures;
  } finally {
    gateway.child.kill("SIGTERM");
    passThrough.child.kill("SIGTERM");
    upstream.close();
    for (const worker of [gateway, passThrough])
      rmSync(worker.dir, { recursive: true, force: true });
  }
}
