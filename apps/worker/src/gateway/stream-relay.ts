/**
 * @module gateway/stream-relay
 * Passes an upstream's server-sent events to the client chunk by chunk, as
 * they arrive and byte for byte (a stream is never buffered), while the
 * protocol's accumulator reads the same events to assemble the answer. The
 * client's reads pull from the upstream, so a slow client slows the upstream
 * and nothing piles up here.
 * - the stream completes, or the client stops reading once the answer's last
 *   event reached it (the SDKs stop at OpenAI's `[DONE]`): `onComplete` gets
 *   the answer (the caller appends it);
 * - the client goes away before: the upstream is cancelled and nothing is appended;
 * - the upstream goes quiet for longer than the pause allowed, or breaks: the
 *   client gets the protocol's error event and the end of the stream, and
 *   nothing is appended.
 */

import { createParser } from "eventsource-parser";
import type { ProtocolAnswer, StreamAccumulator } from "./protocols/protocol";

export interface RelayOptions {
  accumulator: StreamAccumulator;
  /** The longest pause between two chunks. */
  idleTimeoutMs: number;
  /** The error event that ends a stream the gateway has to cut. */
  errorEvent: (reason: "timeout" | "broken") => string;
  /** Called with the answer of a stream that completed (never rejects); `done` waits for it. */
  onComplete: (answer: ProtocolAnswer) => Promise<void>;
}

export interface Relay {
  body: ReadableStream<Uint8Array>;
  /** Settles once the stream ended one way or the other (and the answer was handled). */
  done: Promise<void>;
}

const encoder = new TextEncoder();

function ignore(): void {}

export function relayStream(upstream: ReadableStream<Uint8Array>, options: RelayOptions): Relay {
  const reader = upstream.getReader();
  const decoder = new TextDecoder();
  const parser = createParser({ onEvent: (event) => options.accumulator.event(event) });
  // `done` follows whatever is still to be waited for when the stream ends (the answer's append).
  let settle: (pending?: Promise<void>) => void = () => {};
  const done = new Promise<void>((resolve) => {
    settle = (pending) => resolve(pending);
  });

  const nextChunk = (): Promise<ReadableStreamReadResult<Uint8Array> | "timeout"> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), options.idleTimeoutMs);
    });
    return Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
  };

  const cut = (
    controller: ReadableStreamDefaultController<Uint8Array>,
    reason: "timeout" | "broken",
  ) => {
    controller.enqueue(encoder.encode(options.errorEvent(reason)));
    controller.close();
    settle(reader.cancel().then(ignore, ignore));
  };

  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let read: ReadableStreamReadResult<Uint8Array> | "timeout";
        try {
          read = await nextChunk();
        } catch {
          cut(controller, "broken");
          return;
        }
        if (read === "timeout") {
          cut(controller, "timeout");
          return;
        }
        if (read.done) {
          parser.feed(decoder.decode());
          controller.close();
          const answer = options.accumulator.result();
          settle(answer === undefined ? undefined : options.onComplete(answer));
          return;
        }
        controller.enqueue(read.value);
        parser.feed(decoder.decode(read.value, { stream: true }));
      },
      cancel(reason) {
        // The client stopped reading. After the answer's last event (SDKs stop at OpenAI's `[DONE]`)
        // it has the whole answer, which is stored; before, it abandoned it, and nothing is.
        const answer = options.accumulator.result();
        settle(answer === undefined ? undefined : options.onComplete(answer));
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { body, done };
}
