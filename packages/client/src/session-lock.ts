/**
 * @module session-lock
 * One conversation turn at a time per session. A model call on a session is
 * several service calls (append what is new, fetch the context, append the
 * answer); two calls interleaving them would store one call's question between
 * the other's question and answer, and send each model a context without the
 * other's answer. So the integrations (`withCompaction`, `condenseMiddleware`)
 * hold the session's lock from their first append to their last, and calls on
 * one session wait their turn, in the order they were made.
 *
 * The locks live in the `Condense` client: every handle of one session id made
 * by one client shares its lock. Two clients (or two processes) on one session
 * are not serialized against each other.
 */

/** A held lock; `release` is idempotent. */
export interface SessionLock {
  release(): void;
}

export class SessionLocks {
  /** Per session id: settles when the last holder queued so far released. */
  readonly #tails = new Map<string, Promise<void>>();

  /**
   * Waits until every earlier holder of `key` released, then holds it. If `signal` aborts
   * while waiting, rejects with its reason and takes no turn (later waiters are not held up).
   */
  acquire(key: string, signal?: AbortSignal): Promise<SessionLock> {
    if (signal?.aborted === true) return Promise.reject(signal.reason);
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let releaseTurn: () => void = () => {};
    const turn = new Promise<void>((resolve) => {
      releaseTurn = resolve;
    });
    const tail = previous.then(() => turn);
    this.#tails.set(key, tail);
    let released = false;
    const lock: SessionLock = {
      release: () => {
        if (released) return;
        released = true;
        releaseTurn();
        if (this.#tails.get(key) === tail) this.#tails.delete(key);
      },
    };
    return new Promise<SessionLock>((resolve, reject) => {
      const onAbort = () => {
        // Our turn still comes after `previous`; giving it back at once keeps the queue moving.
        lock.release();
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      void previous.then(() => {
        signal?.removeEventListener("abort", onAbort);
        if (!released) resolve(lock);
      });
    });
  }

  /** Sessions with a holder or waiters (for tests). */
  get size(): number {
    return this.#tails.size;
  }
}
