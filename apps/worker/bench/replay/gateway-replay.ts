/**
 * @module bench/replay/gateway-replay
 * Replays a transcript through the gateway as an agent runs it: before each assistant message,
 * the whole history so far goes to `/v1/gateway/{upstream}/chat/completions` with a session
 * header and the window to use, marked for caching as Claude Code marks its prompts (the end of
 * the system prompt and the newest message, `cache_control` on their last content part); the
 * test upstream answers with the transcript's assistant message and records every request the
 * gateway forwarded. Between turns the replay waits until no background compaction is pending
 * or running, as a model's answer takes seconds while the compaction runs; then `afterTurn`, when
 * given, sees the turn (the probe bench reads the session there, as it stands at that turn).
 */

import type { ChatMessage } from "@condense/core";
import { scenarioHeaders } from "@condense/test-servers";
import type { GatewayUpstream, RecordedCall } from "../../test/support/gateway-upstream.ts";

export interface GatewayTarget {
  /** The Worker's origin, e.g. `http://127.0.0.1:8787`. */
  base: string;
  /** The API key the Worker accepts. */
  key: string;
  /** The upstream's name in `GATEWAY_UPSTREAMS`. */
  upstreamName: string;
  upstream: GatewayUpstream;
}

export interface CompactionRecord {
  tier: number;
  tokensBefore: number;
  tokensAfter: number;
  summary: string | null;
  prunedToolOutputs: number;
}

export interface GatewayReplay {
  /** The forwarded requests, one per turn, in order. */
  forwarded: RecordedCall[];
  /** The client's history of each turn, as sent (without markers). */
  histories: ChatMessage[][];
  compactions: CompactionRecord[];
  /** The `X-Condense-Generation` answers (one value: the session followed the whole replay). */
  generations: Set<string>;
  /** Wall time of the replay. */
  ms: number;
}

const EPHEMERAL = { type: "ephemeral" } as const;

/** `message` with a cache marker on its last content part (string content becomes one part). */
function marked(message: ChatMessage): ChatMessage {
  const content = message.content;
  if (typeof content === "string" && content !== "") {
    // `cache_control` rides on the part as OpenRouter and LiteLLM take it; core's types leave it out.
    const part = { type: "text", text: content, cache_control: EPHEMERAL };
    return { ...message, content: [part] } as ChatMessage;
  }
  if (Array.isArray(content) && content.length > 0) {
    const parts = content.map((part, index) =>
      index === content.length - 1 ? { ...part, cache_control: EPHEMERAL } : part,
    );
    return { ...message, content: parts } as ChatMessage;
  }
  return message;
}

/** The history as Claude Code sends it: the system prompt's end and the newest message marked. */
export function withClientMarkers(history: readonly ChatMessage[]): ChatMessage[] {
  const out = [...history];
  let system = 0;
  while (out[system]?.role === "system" || out[system]?.role === "developer") system++;
  const last = out.length - 1;
  if (system > 0) out[system - 1] = marked(out[system - 1] as ChatMessage);
  if (last >= system) out[last] = marked(out[last] as ChatMessage);
  return out;
}

async function call(target: GatewayTarget, method: string, path: string): Promise<unknown> {
  const response = await fetch(`${target.base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${target.key}` },
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

/** Waits (bounded) until the session has no compaction scheduled or running. */
async function settled(target: GatewayTarget, session: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const status = (await call(target, "GET", `/v1/sessions/${session}`)) as {
      compaction: { status: string };
    };
    if (status.compaction.status === "none") return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`session ${session}: a compaction was still pending after 12 s`);
}

/** One replayed turn, as `afterTurn` sees it once the session has settled. */
export interface ReplayedTurn {
  /** 0 for the first turn. */
  turn: number;
  /** The client's history of this turn. */
  history: ChatMessage[];
  /** The request the gateway forwarded for it. */
  forwarded: RecordedCall | undefined;
}

/** Replays `messages` turn by turn through the gateway into `session`, at `contextWindow`. */
export async function replayThroughGateway(
  target: GatewayTarget,
  options: {
    session: string;
    messages: ChatMessage[];
    contextWindow: number;
    model: string;
    afterTurn?: (turn: ReplayedTurn) => Promise<void>;
  },
): Promise<GatewayReplay> {
  const started = performance.now();
  const { session, messages } = options;
  const tag = `cost-${session}`;
  const answers = messages.filter((message, index) => message.role === "assistant" && index > 0);
  const queued = await fetch(`${target.upstream.origin}/control/answers`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tag, answers }),
  });
  if (!queued.ok) throw new Error(`the upstream did not queue the answers: ${queued.status}`);

  const histories: ChatMessage[][] = [];
  const generations = new Set<string>();
  for (const [index, message] of messages.entries()) {
    if (message.role !== "assistant" || index === 0) continue;
    const history = messages.slice(0, index);
    histories.push(history);
    const response = await fetch(
      `${target.base}/v1/gateway/${target.upstreamName}/chat/completions`,
      {
        method: "POST",
        headers: {
          Authorization: `Bearer ${target.key}`,
          "Content-Type": "application/json",
          "X-Condense-Session": session,
          "X-Condense-Context-Window": String(options.contextWindow),
          ...scenarioHeaders({ name: tag }),
        },
        body: JSON.stringify({ model: options.model, messages: withClientMarkers(history) }),
      },
    );
    const text = await response.text();
    if (!response.ok) {
      throw new Error(
        `${session}, turn ${histories.length}: ${response.status} ${text.slice(0, 300)}`,
      );
    }
    generations.add(response.headers.get("X-Condense-Generation") ?? "none");
    await settled(target, session);
    if (options.afterTurn !== undefined) {
      const forwarded = target.upstream
        .calls(tag)
        .filter((recorded) => recorded.path.endsWith("/chat/completions"))
        .at(-1);
      await options.afterTurn({ turn: histories.length - 1, history, forwarded });
    }
  }
  const { compactions } = (await call(target, "GET", `/v1/sessions/${session}/compactions`)) as {
    compactions: CompactionRecord[];
  };
  const forwarded = target.upstream
    .calls(tag)
    .filter((recorded) => recorded.path.endsWith("/chat/completions"));
  // The recorded bodies are billed by the caller; the upstream need not keep them.
  target.upstream.forget(tag);
  return { forwarded, histories, compactions, generations, ms: performance.now() - started };
}
