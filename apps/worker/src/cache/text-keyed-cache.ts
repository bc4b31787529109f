/**
 * @module cache/text-keyed-cache
 * A bounded, least-recently-used cache keyed by text, for what the gateway
 * computes from the parts of a request an agent resends every turn (message
 * hashes, the tokens of its tool definitions): an isolate serves many turns,
 * so the earlier turns' results are looked up instead of computed again.
 * Hand-written: twenty lines on a `Map` (which keeps insertion order); a cache
 * library would be a dependency for it.
 */

export class TextKeyedCache<V> {
  readonly #entries = new Map<string, V>();
  #chars = 0;

  /**
   * @param maxChars how many characters of keys the cache holds at most (a key longer than an
   *   eighth of it is not kept: one huge entry would evict everything else).
   */
  constructor(readonly maxChars: number) {}

  /** The value kept for `key`, which becomes the most recently used; undefined when none is. */
  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    return value;
  }

  /** Keeps `value` for `key`, evicting the least recently used keys beyond the bound. */
  set(key: string, value: V): void {
    if (key.length > this.maxChars / 8 || this.#entries.has(key)) return;
    this.#entries.set(key, value);
    this.#chars += key.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#chars <= this.maxChars) break;
      this.#entries.delete(oldest);
      this.#chars -= oldest.length;
    }
  }
}
