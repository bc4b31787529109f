/**
 * @module gateway/keep-alive
 * Keeps a client's connection alive while the gateway makes it wait: a
 * compaction (an overflow's, with the LLM summarizer) can take longer than a
 * proxy lets a connection sit silent (100 s on Cloudflare's edge, 60–120 s on
 * common load balancers), which would cut the request the client is waiting
 * on. After `GATEWAY_KEEPALIVE_MS` of silence the response is committed (status
 * 200, the `X-Condense-*` headers known then, `X-Condense-Keep-Alive`) and a
 * byte the protocol ignores is written every interval until the answer is
 * ready, then the answer follows:
 * - a streamed request gets SSE comments (`: keep-alive`), which every SSE
 *   parser skips; the interval counts from the request's arrival, the upstream's
 *   own wait for its first event included. An error that comes after the
 *   commit is the protocol's error event, which the SDKs raise;
 * - a non-streamed (JSON) request gets spaces, whitespace JSON allows before a
 *   value; the interval counts only while the gateway itself waits (planning
 *   the request's context, an overflow's compaction), never the upstream's own
 *   answer time, so the status is committed early only where the gateway is
 *   the cause. An error after the commit is the protocol's error object, with
 *   the 200 already sent.
 * Without a commit the response is the answer itself, as before. Nothing of
 * the answer is buffered: once it is ready it is piped through.
 */

import type { Context } from "hono";
import type { AppEnv } from "../http/app-env";
import { handleError } from "../http/error-handler";
import { GATEWAY_HEADERS } from "./condense-headers";
import type { GatewayProtocol } from "./protocol";
import { afterResponse } from "./respond";

const encoder = new TextEncoder();
const SSE_COMMENT = encoder.encode(": keep-alive\n\n");
const JSON_WHITESPACE = encoder.encode(" ");

/** Marks the gateway's own waits (a JSON request's keep-alive counts only during them). */
export type GatewayWait = <T>(work: Promise<T>) => Promise<T>;

export interface KeepAliveOptions {
  /** Milliseconds of silence before the response is committed and between keep-alive bytes; 0: off. */
  intervalMs: number;
  /** Whether the client asked for a stream (SSE), else JSON. */
  streamed: boolean;
  protocol: GatewayProtocol;
  /** The `X-Condense-*` headers known when the response is committed. */
  headers: () => Promise<Record<string, string>>;
}

/** Whether `response` is a success the client can be given as it is after the commit. */
function isSuccess(response: Response): boolean {
  return response.status >= 200 && response.status < 300 && response.body !== null;
}

/** The `{ code, message }` an error body states (OpenAI's or Anthropic's shape), for a stream's error event. */
function statedError(status: number, text: string): { code: string; message: string } {
  try {
    const body = JSON.parse(text) as {
      error?: { code?: unknown; type?: unknown; message?: unknown };
    };
    const error = body.error;
    const code = typeof error?.code === "string" ? error.code : error?.type;
    if (typeof error?.message === "string") {
      return {
        code: typeof code === "string" ? code : `http_${status}`,
        message: `${status}: ${error.message}`,
      };
    }
  } catch {
    // Not JSON: its text is the message.
  }
  return { code: `http_${status}`, message: `${status}: ${text.slice(0, 2_000)}` };
}

/**
 * Runs `produce` (which marks its own waits with the `GatewayWait` it is given) and answers with its
 * response, or, when the client would wait past the interval, with a response committed early that
 * keeps the connection alive and then carries the answer.
 */
export async function withKeepAlive(
  c: Context<AppEnv>,
  options: KeepAliveOptions,
  produce: (gatewayWait: GatewayWait) => Promise<Response>,
): Promise<Response> {
  const { intervalMs, streamed } = options;
  if (intervalMs <= 0) return produce((work) => work);

  /** The committed response's body, made only when the response is committed. */
  let channel: Channel | undefined;
  const keepAliveBytes = streamed ? SSE_COMMENT : JSON_WHITESPACE;
  let settled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let resolveCommitted: (response: Response) => void = () => {};
  const committed = new Promise<Response>((resolve) => {
    resolveCommitted = resolve;
  });
  /** Set once the response is committed: its headers are being, or were, sent. */
  let commitment: Promise<void> | undefined;

  const beat = (): void => {
    if (settled || channel === undefined) return;
    channel.writer.write(keepAliveBytes).catch(() => {
      // The client went away: nothing more to keep alive.
      settled = true;
    });
    timer = setTimeout(beat, intervalMs);
  };
  const commit = async (): Promise<void> => {
    const known = await options.headers().catch(() => ({}));
    const headers = new Headers(known);
    headers.set("content-type", streamed ? "text/event-stream; charset=utf-8" : "application/json");
    headers.set("cache-control", "no-cache");
    headers.set(GATEWAY_HEADERS.keepAlive, String(intervalMs));
    const stream = new TransformStream<Uint8Array, Uint8Array>();
    channel = { stream, writer: stream.writable.getWriter() };
    resolveCommitted(new Response(stream.readable, { status: 200, headers }));
    beat();
  };
  const arm = (): void => {
    if (timer !== undefined || settled || commitment !== undefined) return;
    timer = setTimeout(() => {
      if (!settled) commitment = commit();
    }, intervalMs);
  };
  const disarm = (): void => {
    if (commitment !== undefined || timer === undefined) return;
    clearTimeout(timer);
    timer = undefined;
  };

  // A stream's silence counts from the start; a JSON request's only while the gateway waits.
  if (streamed) arm();
  const gatewayWait: GatewayWait = async (work) => {
    if (streamed) return work;
    arm();
    try {
      return await work;
    } finally {
      disarm();
    }
  };
  const answer = produce(gatewayWait)
    .catch((error: unknown) =>
      handleError(error instanceof Error ? error : new Error(String(error)), c),
    )
    .finally(() => {
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
    });

  const first = await Promise.race([answer, committed]);
  if (commitment === undefined) return first;
  const written = commitment.then(async () => {
    if (channel !== undefined) await writeAnswer(options.protocol, streamed, answer, channel);
  });
  afterResponse(c, written);
  return await committed;
}

/** The body of a committed response, and its writer. */
interface Channel {
  stream: TransformStream<Uint8Array, Uint8Array>;
  writer: WritableStreamDefaultWriter<Uint8Array>;
}

/** Writes the answer after the keep-alive bytes: a success piped as it comes, an error in-band. */
async function writeAnswer(
  protocol: GatewayProtocol,
  streamed: boolean,
  answer: Promise<Response>,
  { stream, writer }: Channel,
): Promise<void> {
  const response = await answer;
  try {
    if (isSuccess(response) && response.body !== null) {
      writer.releaseLock();
      await response.body.pipeTo(stream.writable);
      return;
    }
    const text = await response.text();
    const stated = statedError(response.status, text);
    const error = streamed ? protocol.streamError(stated.code, stated.message) : text;
    await writer.write(encoder.encode(error));
    await writer.close();
  } catch {
    // The client went away while the answer was written: nothing is left to tell, and the
    // answer's own stream was cancelled with it (nothing is stored of an answer cut short).
    await response.body?.cancel().catch(() => {});
  }
}
