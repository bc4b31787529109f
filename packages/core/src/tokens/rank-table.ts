/**
 * @module tokens/rank-table
 * Rank lookup for byte ranges: a hash table over the decoded tokens (chained, in two
 * Int32Arrays), so the merge loop asks "what is the rank of bytes i..j of this piece" without
 * building a string per question. Built in a few milliseconds from the hashes the decoder
 * computed, against ~60 ms and 12 MB of heap for a `Map` of 200k strings; written by hand
 * because no library offers a byte-range lookup.
 *
 * Each slot heads a chain of the tokens whose hashes pick it: the slot holds the newest one's
 * `fingerprint | rank + 1` and {@link RankTable} keeps, per token, the entry inserted before it
 * at the same slot. Building is then one branch-free pass (read the slot, link, write), where
 * linear probing at three-quarters full took a mispredicted branch per collision: about a third
 * less time to build o200k_base's table in a fresh process, for one more array of 200k entries.
 * A lookup follows its slot's chain (under one entry on average) by the fingerprints and links
 * alone; a token's bytes are compared (and written, see `decoded-tokens.ts`) only when
 * its hash and length match.
 */

import type { DecodedTokens } from "./decoded-tokens.js";
import { hashBytes, mixHash } from "./rank-coding.js";

const EMPTY = 0;
const MAX_LOAD = 0.8;

export class RankTable {
  /** Longest token in bytes: longer ranges are answered without hashing. */
  readonly maxTokenLength: number;
  private readonly tokens: DecodedTokens;
  private readonly bytes: Uint8Array;
  private readonly lengths: Uint8Array;
  private readonly hashes: Int32Array;
  /** The newest token's `fingerprint | rank + 1` per slot, {@link EMPTY} when none. */
  private readonly slots: Int32Array;
  /** Per rank, the entry inserted before it at the same slot ({@link EMPTY} at a chain's end). */
  private readonly chains: Int32Array;
  private readonly mask: number;
  /** Bits of a slot below the fingerprint (they hold `rank + 1`). */
  private readonly rankBits: number;
  /** How far a mixed hash is shifted before its bits above the slot index become the fingerprint. */
  private readonly slotBits: number;

  constructor(tokens: DecodedTokens) {
    const { hashes, count } = tokens;
    let slotBits = 1;
    while (2 ** slotBits * MAX_LOAD < count) slotBits++;
    const rankBits = 32 - Math.clz32(count);
    // At least 8 bits of fingerprint; js-tiktoken's largest table needs 18 for its ranks.
    if (rankBits > 24) throw new RangeError(`a rank table of ${count} tokens is too large`);
    const slots = new Int32Array(2 ** slotBits);
    const chains = new Int32Array(count);
    const mask = slots.length - 1;
    for (let rank = 0; rank < count; rank++) {
      // `mixHash`, written out: in a fresh process the loop runs interpreted until V8 optimizes
      // it, and a call per token then cost ~0.5 ms of the first count (measured). The property
      // tests below would fail on any difference, since lookups call `mixHash` itself.
      const hash = hashes[rank] as number;
      let mixed = hash ^ (hash >>> 16);
      mixed = Math.imul(mixed, 0x7feb352d);
      mixed ^= mixed >>> 15;
      mixed = Math.imul(mixed, 0x846ca68b);
      mixed ^= mixed >>> 16;
      const slot = mixed & mask;
      chains[rank] = slots[slot] as number;
      slots[slot] = ((mixed >>> slotBits) << rankBits) | (rank + 1);
    }
    this.tokens = tokens;
    this.bytes = tokens.bytes;
    this.lengths = tokens.lengths;
    this.hashes = hashes;
    this.slots = slots;
    this.chains = chains;
    this.mask = mask;
    this.rankBits = rankBits;
    this.slotBits = slotBits;
    this.maxTokenLength = tokens.maxTokenLength;
  }

  /** The rank of the token `piece[start..end)`, or -1 if those bytes are no token. */
  rankOf(piece: Uint8Array, start: number, end: number): number {
    const length = end - start;
    if (length > this.maxTokenLength || length <= 0) return -1;
    const { bytes, lengths, hashes, slots, chains, mask, rankBits } = this;
    const hash = hashBytes(piece, start, end);
    const mixed = mixHash(hash);
    const fingerprint = (mixed >>> this.slotBits) << rankBits;
    const rankMask = (1 << rankBits) - 1;
    for (let entry = slots[mixed & mask] as number; entry !== EMPTY; ) {
      const rank = (entry & rankMask) - 1;
      if (
        (entry & ~rankMask) === fingerprint &&
        hashes[rank] === hash &&
        lengths[rank] === length
      ) {
        const tokenStart = this.tokens.position(rank);
        let i = 0;
        while (i < length && bytes[tokenStart + i] === piece[start + i]) i++;
        if (i === length) return rank;
      }
      entry = chains[rank] as number;
    }
    return -1;
  }
}
