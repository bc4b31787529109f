/**
 * @module retry
 * Bounded retries with exponential backoff and jitter. A failed attempt says
 * whether it may be retried and, when the server sent `Retry-After`, how long
 * to wait; that wait is honoured exactly, and a server asking for more than
 * `maxRetryAfterMs` is not retried (the caller learns at once instead of
 * hanging). Waits end early, with the signal's reason, when the signal aborts.
 */

export interface RetryPolicy {
  /** Retries after the first attempt (0: no retry). */
  maxRetries: number;
  /** Backoff before the first retry; doubles with each retry. */
  initialDelayMs: number;
  /** Ceiling of the exponential backoff. */
  maxDelayMs: number;
  /** The longest `Retry-After` that is waited out; a longer one ends the retries. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 2,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/** What one attempt produced. */
export type AttemptResult<T> =
  | { ok: true; value: T }
  | { ok: false; error: unknown; retryable: boolean; retryAfterMs?: number | undefined };

/**
 * The wait before retry number `retry` (0-based): the exponential step, capped, scaled by a
 * random factor in [0.5, 1) so that clients failing together do not retry together.
 */
export function backoffDelay(
  retry: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const step = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  return step * (0.5 + random() / 2);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, fails in a way that may not be retried, or the retries
 * are used up; then throws the last attempt's error. `attempt` gets its 0-based number.
 */
export async function retrying<T>(
  attempt: (index: number) => Promise<AttemptResult<T>>,
  policy: RetryPolicy,
  options: { signal?: AbortSignal | undefined; random?: () => number } = {},
): Promise<T> {
  for (let index = 0; ; index++) {
    const result = await attempt(index);
    if (result.ok) return result.value;
    if (!result.retryable || index >= policy.maxRetries || options.signal?.aborted === true) {
      throw result.error;
    }
    let wait: number;
    if (result.retryAfterMs !== undefined) {
      if (result.retryAfterMs > policy.maxRetryAfterMs) throw result.error;
      wait = result.retryAfterMs;
    } else {
      wait = backoffDelay(index, policy, options.random);
    }
    await sleep(wait, options.signal);
  }
}
