/**
 * @module tokens/decoded-tokens
 * A rank table's tokens as `decodeRanks` leaves them: each token's length and hash at once,
 * its bytes on first use. Most of o200k_base's 200k tokens never occur in a given text, and
 * copying every token's bytes was a third of decoding the table in a fresh process; a token's
 * bytes are needed only when a lookup finds its hash and length and must compare bytes, so they
 * are written then, from the two parts it merges (or from the reference table), at the end of
 * {@link DecodedTokens.bytes}. Memory a fresh process touches for the first time costs as much
 * as the decoding itself, so the bytes of the tokens never used are never touched either.
 */

/** {@link DecodedTokens.sources} of a token whose bytes are in place. */
export const WRITTEN = -1;
/** {@link DecodedTokens.sources} of a token the reference table holds: `REFERENCE - rank there`. */
export const REFERENCE = -2;

/** What the decoder hands over; see the fields of {@link DecodedTokens}. */
export interface DecodedFields {
  readonly lengths: Uint8Array;
  readonly hashes: Int32Array;
  readonly maxTokenLength: number;
  readonly lastByteClasses: Uint8Array;
  readonly sources: Int32Array;
  readonly rightParts: Int32Array;
  /** Room for every token's bytes; the first `written` bytes are in use. */
  readonly bytes: Uint8Array;
  readonly written: number;
  /** Where the tokens already written (`sources[rank] === WRITTEN`) are. */
  readonly positions: Int32Array;
  readonly reference: DecodedTokens | undefined;
}

/** Tokens in rank order: token `r` is `bytes[position(r) .. position(r) + lengths[r]]`. */
export class DecodedTokens {
  /** Each token's length in bytes. */
  readonly lengths: Uint8Array;
  /** `hashBytes` of each token's bytes (see `rank-coding.ts`). */
  readonly hashes: Int32Array;
  /** Length of the longest token in bytes. */
  readonly maxTokenLength: number;
  /** The class of each token's last byte, for a table coded against this one. */
  readonly lastByteClasses: Uint8Array;
  /** The bytes of the tokens written so far, each where {@link position} says. */
  readonly bytes: Uint8Array;
  /** Per token: its left part (it merges that and its right part), {@link WRITTEN}, or a reference. */
  private readonly sources: Int32Array;
  private readonly rightParts: Int32Array;
  private readonly positions: Int32Array;
  private readonly reference: DecodedTokens | undefined;
  private written: number;

  constructor(fields: DecodedFields) {
    this.lengths = fields.lengths;
    this.hashes = fields.hashes;
    this.maxTokenLength = fields.maxTokenLength;
    this.lastByteClasses = fields.lastByteClasses;
    this.bytes = fields.bytes;
    this.sources = fields.sources;
    this.rightParts = fields.rightParts;
    this.positions = fields.positions;
    this.reference = fields.reference;
    this.written = fields.written;
  }

  /** Number of tokens. */
  get count(): number {
    return this.hashes.length;
  }

  /**
   * Where token `rank`'s bytes are in {@link bytes}, after writing them (its parts' first) if
   * they are not there yet. Recursion is as deep as the token is long at most: each part is
   * shorter than the token it makes.
   */
  position(rank: number): number {
    const source = this.sources[rank] as number;
    if (source === WRITTEN) return this.positions[rank] as number;
    const { bytes, lengths } = this;
    let at: number;
    if (source >= 0) {
      const right = this.rightParts[rank] as number;
      const leftAt = this.position(source);
      const rightAt = this.position(right);
      at = this.written;
      bytes.copyWithin(at, leftAt, leftAt + (lengths[source] as number));
      const rightStart = at + (lengths[source] as number);
      bytes.copyWithin(rightStart, rightAt, rightAt + (lengths[right] as number));
    } else {
      const reference = this.reference;
      if (reference === undefined) throw new Error("this table needs its reference table");
      const other = REFERENCE - source;
      const from = reference.position(other);
      at = this.written;
      bytes.set(reference.bytes.subarray(from, from + (lengths[rank] as number)), at);
    }
    this.written = at + (lengths[rank] as number);
    this.positions[rank] = at;
    this.sources[rank] = WRITTEN;
    return at;
  }

  /** The bytes of token `rank` (a view of {@link bytes}). */
  tokenBytes(rank: number): Uint8Array {
    const at = this.position(rank);
    return this.bytes.subarray(at, at + (this.lengths[rank] as number));
  }
}
