/**
 * @module sdk-stream
 * Hands an SDK's stream on to the caller while the integration watches it: a
 * new instance of the SDK's own stream class (the `openai` and Anthropic SDKs
 * share its shape: an iterator factory and an AbortController) over a
 * pass-through generator, so callers keep `controller`, `tee()` and
 * `toReadableStream()`. Each item is handed on as it arrives, never collected.
 */

import type { SessionLock } from "./session-lock.js";

/** What both SDKs' `Stream` classes are. */
export interface SdkStream<T> extends AsyncIterable<T> {
  controller: AbortController;
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
