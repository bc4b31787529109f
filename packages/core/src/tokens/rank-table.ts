/**
 * @module tokens/rank-table
 * Rank lookup for byte ranges: a hash table over the decoded tokens (open addressing in one
 * Int32Array), so the merge loop asks "what is the rank of bytes i..j of this piece" without
 * building a string per question. Built in a few milliseconds from the hashes the decoder
 * computed, against ~60 ms and 12 MB of heap for a `Map` of 200k strings; written by hand
 * because no library offers a byte-range lookup. A token's bytes are compared (and written,
 * see `decoded-tokens.ts`) only when its hash and length match.
 */

import type { DecodedTokens } from "./decoded-tokens.js";
import { hashBytes, mixHash } from "./rank-coding.js";

const EMPTY = -1;

export class RankTable {
  /** Longest token in bytes: longer ranges are answered without hashing. */
  readonly maxTokenLength: number;
  private readonly tokens: DecodedTokens;
  private readonly bytes: Uint8Array;
  private readonly lengths: Uint8Array;
  private readonly hashes: Int32Array;
  private readonly slots: Int32Array;
  private readonly mask: number;

  constructor(tokens: DecodedTokens) {
    const { hashes, count } = tokens;
    let size = 1;
    while (size < count * 2) size *= 2; // load factor at most 1/2: short probe runs
    const slots = new Int32Array(size).fill(EMPTY);
    const mask = size - 1;
    for (let rank = 0; rank < count; rank++) {
      let slot = mixHash(hashes[rank] as number) & mask;
      while (slots[slot] !== EMPTY) slot = (slot + 1) & mask;
      slots[slot] = rank;
    }
    this.tokens = tokens;
    this.bytes = tokens.bytes;
    this.lengths = tokens.lengths;
    this.hashes = hashes;
    this.slots = slots;
    this.mask = mask;
    this.maxTokenLength = tokens.maxTokenLength;
  }

  /** The rank of the token `piece[start..end)`, or -1 if those bytes are no token. */
  rankOf(piece: Uint8Array, start: number, end: number): number {
    const length = end - start;
    if (length > this.maxTokenLength || length <= 0) return -1;
    const { bytes, lengths, hashes, slots, mask } = this;
    const hash = hashBytes(piece, start, end);
    let slot = mixHash(hash) & mask;
    for (;;) {
      const rank = slots[slot] as number;
      if (rank === EMPTY) return -1;
      if (hashes[rank] === hash && lengths[rank] === length) {
        const tokenStart = this.tokens.position(rank);
        let i = 0;
        while (i < length && bytes[tokenStart + i] === piece[start + i]) i++;
        if (i === length) return rank;
      }
      slot = (slot + 1) & mask;
    }
  }
}
