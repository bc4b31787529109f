/**
 * @module sdk-stream
 * Hands an SDK's stream on to the caller while the integration watches it: a
 * new instance of the SDK's own stream class (the `openai` and Anthropic SDKs
 * share its shape: an iterator factory and an AbortController) over a
 * pass-through generator, so callers keep `controller`, `tee()` and
 * `toReadableStream()`. Each item is handed on as it arrives, never collected;
 * when the stream has ended, the integration appends the answer it watched.
 */

import type { SessionLock } from "./session-lock.js";

/** What both SDKs' `Stream` classes are. */
export interface SdkStream<T> extends AsyncIterable<T> {
  controller: AbortController;
}

/**
 * A `create` typed as both SDKs type theirs: the answer for a body that does not stream, the
 * SDK's stream for one with `stream: true`, either for a body that does not say.
 */
export interface StreamingCreate<Body, Answer, Streamed, Options> {
  (body: Body & { stream?: false | null }, options?: Options): Promise<Answer>;
  (body: Body & { stream: true }, options?: Options): Promise<Streamed>;
  (body: Body, options?: Options): Promise<Streamed | Answer>;
}

type StreamConstructor<T, S extends SdkStream<T>> = new (
  iterator: () => AsyncIterator<T>,
  controller: AbortController,
) => S;

/**
 * `passThrough` as an instance of `stream`'s class. Aborting the stream's controller gives the
 * session's turn back, even when nobody iterates the stream.
 */
export function rewrapStream<T, S extends SdkStream<T>>(
  stream: S,
  passThrough: () => AsyncGenerator<T>,
  lock: SessionLock,
): S {
  stream.controller.signal.addEventListener("abort", () => lock.release(), { once: true });
  const Wrapped = stream.constructor as StreamConstructor<T, S>;
  return new Wrapped(() => passThrough(), stream.controller);
}

/**
 * `stream` handed on to the caller (as `rewrapStream`), each item shown to `watch` first, which
 * says whether the caller sees it; once the stream has ended, `ended` runs (the answer's append).
 * However the stream stops, the session's turn (`lock`) is given back.
 */
export function watchStream<T, S extends SdkStream<T>>(
  stream: S & SdkStream<T>,
  lock: SessionLock,
  watch: (item: T) => boolean,
  ended: () => Promise<void>,
): S {
  async function* passThrough(): AsyncGenerator<T> {
    try {
      for await (const item of stream) if (watch(item)) yield item;
      await ended();
    } finally {
      lock.release();
    }
  }
  return rewrapStream(stream, passThrough, lock);
}
