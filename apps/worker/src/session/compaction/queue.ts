/**
 * @module session/compaction/queue
 * A turn queue for compactions: tasks run one at a time, in arrival order, as
 * a promise chain. A Durable Object's input gate does not hold while a
 * compaction awaits its summarizer (a fetch), so other requests run meanwhile;
 * this queue is what keeps two compactions of one session from overlapping.
 */

export class CompactionQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;

  /** Tasks queued or running. */
  get size(): number {
    return this.#pending;
  }

  /** Runs `task` after every task queued before it has settled; a failure does not block later tasks. */
  run<T>(task: () => Promise<T>): Promise<T> {
    this.#pending++;
    const result = this.#tail.then(task, task);
    this.#tail = result.then(
      () => {
        this.#pending--;
      },
      () => {
        this.#pending--;
      },
    );
    return result;
  }
}
