/**
 * @module bench/compare/retry
 * One retry for a comparison's requests.
 */

/**
 * Runs `task`, and once more if it fails: a request can be dropped by no fault of the code measured
 * (`wrangler dev` reloading when a file it watches changes, a connection reset on a loaded machine),
 * and one lost request should not throw a run of many minutes away. A second failure is real and
 * ends the run. Returns when the attempt that succeeded started (`performance.now()`), so that a
 * figure times that attempt alone; the retry waits `pauseMs` first (a reload takes a moment).
 */
export async function retriedOnce(
  what: string,
  task: () => Promise<unknown>,
  pauseMs = 200,
): Promise<number> {
  const started = performance.now();
  try {
    await task();
    return started;
  } catch (error) {
    console.log(`${what} failed (${String(error).slice(0, 200)}); retried once`);
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    const again = performance.now();
    await task();
    return again;
  }
}
