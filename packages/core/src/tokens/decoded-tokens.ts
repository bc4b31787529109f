/**
 * @module tokens/decoded-tokens
 * A rank table's tokens as `decodeRanks` leaves them: each token's length and hash at once,
 * its bytes on first use. Most of o200k_base's 200k tokens never occur in a given text, and
 * copying every token's bytes was a third of decoding the table in a fresh process; a token's
 * bytes are needed only when a lookup finds its hash and length and must compare bytes, so they
 * are written then, from the two parts it merges (or from the reference table).
 */

/** {@link DecodedTokens.sources} of a token whose bytes are in place. */
export const WRITTEN = -1;
/** {@link DecodedTokens.sources} of a token the reference table holds: `REFERENCE - rank there`. */
export const REFERENCE = -2;

/** What the decoder hands over; see the fields of {@link DecodedTokens}. */
export interface DecodedFields {
  readonly offsets: Uint32Array;
  readonly hashes: Int32Array;
  readonly maxTokenLength: number;
  readonly lastByteClasses: Uint8Array;
  readonly bytes: Uint8Array;
  readonly sources: Int32Array;
  readonly rightParts: Int32Array;
  readonly reference: DecodedTokens | undefined;
}

/** Tokens in rank order: token `r` is `bytes[offsets[r] .. offsets[r + 1]]` once written. */
export class DecodedTokens {
  /** Where each token's bytes go in {@link bytes}; `count + 1` entries. */
  readonly offsets: Uint32Array;
  /** `hashBytes` of each token's bytes (see `rank-coding.ts`). */
  readonly hashes: Int32Array;
  /** Length of the longest token in bytes. */
  readonly maxTokenLength: number;
  /** The class of each token's last byte, for a table coded against this one. */
  readonly lastByteClasses: Uint8Array;
  /** Token bytes by rank: a token's range holds its bytes after {@link write}. */
  readonly bytes: Uint8Array;
  /** Per token: its left part (it merges that and its right part), {@link WRITTEN}, or a reference. */
  private readonly sources: Int32Array;
  private readonly rightParts: Int32Array;
  private readonly reference: DecodedTokens | undefined;

  constructor(fields: DecodedFields) {
    this.offsets = fields.offsets;
    this.hashes = fields.hashes;
    this.maxTokenLength = fields.maxTokenLength;
    this.lastByteClasses = fields.lastByteClasses;
    this.bytes = fields.bytes;
    this.sources = fields.sources;
    this.rightParts = fields.rightParts;
    this.reference = fields.reference;
  }

  /** Number of tokens. */
  get count(): number {
    return this.hashes.length;
  }

  /**
   * Puts token `rank`'s bytes in place (its parts' first). Recursion is as deep as the token is
   * long at most: each part is shorter than the token it makes.
   */
  write(rank: number): void {
    const source = this.sources[rank] as number;
    if (source === WRITTEN) return;
    const { bytes, offsets } = this;
    const at = offsets[rank] as number;
    if (source >= 0) {
      const right = this.rightParts[rank] as number;
      this.write(source);
      this.write(right);
      const leftEnd = offsets[source + 1] as number;
      bytes.copyWithin(at, offsets[source] as number, leftEnd);
      bytes.copyWithin(
        at + leftEnd - (offsets[source] as number),
        offsets[right] as number,
        offsets[right + 1] as number,
      );
    } else {
      const reference = this.reference;
      if (reference === undefined) throw new Error("this table needs its reference table");
      const other = REFERENCE - source;
      reference.write(other);
      bytes.set(
        reference.bytes.subarray(reference.offsets[other], reference.offsets[other + 1]),
        at,
      );
    }
    this.sources[rank] = WRITTEN;
  }

  /** The bytes of token `rank` (a view of {@link bytes}). */
  tokenBytes(rank: number): Uint8Array {
    this.write(rank);
    return this.bytes.subarray(this.offsets[rank], this.offsets[rank + 1]);
  }
}
