/**
 * @module ai-sdk/overlap
 * Which messages of a prompt the session does not have yet. The AI SDK sends a
 * model the whole history it keeps (and resends it, grown, at every step of a
 * tool loop), while the session must get each message once. So the prompt is
 * compared with what the session holds, by canonical key:
 *
 * - a system message the session already has is not new (a system prompt comes
 *   with every call);
 * - of the other messages, the longest run at the start of the prompt that
 *   equals the end of the session's messages is old, and everything after it is
 *   new. A full history (`[…session, …new]`), a window of its latest messages,
 *   or only the new messages all come out right; a call repeated after it
 *   failed (its messages already stored, no answer yet) adds nothing;
 * - when no such run exists but the prompt starts where the session starts (a
 *   history that left out some of the session's messages: an answer to
 *   regenerate, or the middle steps of a tool loop when a caller kept only the
 *   last step's messages), what both share from the start is old, and of the
 *   rest only what the session does not hold after that point is new.
 *
 * Ambiguity: a caller that sends only the new turn, whose text equals the
 * session's very first message, is taken for a shortened history (nothing new).
 * Sending the whole history, as the AI SDK does, is always exact.
 */

export interface Overlap {
  /** Indexes (into the prompt) of the messages to append, in order. */
  fresh: number[];
}

/** The prompt's messages that `known` (the session's messages, oldest first) does not end with. */
export function freshMessages(
  known: readonly string[],
  prompt: ReadonlyArray<{ key: string; system: boolean }>,
  isSystemKey: (key: string) => boolean,
): Overlap {
  const knownSystems = new Set(known.filter(isSystemKey));
  const history = known.filter((key) => !isSystemKey(key));
  const others: number[] = [];
  const fresh = new Set<number>();
  prompt.forEach((message, index) => {
    if (!message.system) others.push(index);
    else if (!knownSystems.has(message.key)) fresh.add(index);
  });
  const keys = others.map((index) => prompt[index]?.key ?? "");
  let overlap = longestOverlap(history, keys);
  let held = new Set<string>();
  if (overlap === 0) {
    overlap = commonPrefix(history, keys);
    if (overlap > 0) held = new Set(history.slice(overlap));
  }
  for (const index of others.slice(overlap)) {
    if (!held.has(prompt[index]?.key ?? "")) fresh.add(index);
  }
  return { fresh: [...fresh].sort((a, b) => a - b) };
}

/** The largest k such that the first k of `next` equal the last k of `previous`. */
function longestOverlap(previous: readonly string[], next: readonly string[]): number {
  for (let k = Math.min(previous.length, next.length); k > 0; k--) {
    const start = previous.length - k;
    let same = true;
    for (let i = 0; i < k; i++) {
      if (previous[start + i] !== next[i]) {
        same = false;
        break;
      }
    }
    if (same) return k;
  }
  return 0;
}

/** How many messages `a` and `b` share from their start. */
function commonPrefix(a: readonly string[], b: readonly string[]): number {
  let k = 0;
  while (k < a.length && k < b.length && a[k] === b[k]) k++;
  return k;
}
