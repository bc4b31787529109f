/**
 * @module tokens/decoded-tokens
 * A rank table's tokens as `decodeRanks` leaves them: each token's length and hash at once,
 * its bytes on first use. Most of o200k_base's 200k tokens never occur in a given text, and
 * copying every token's bytes was a third of decoding the table in a fresh process; a token's
 * bytes are needed only when a lookup finds its hash and length and must compare bytes, so they
 * are written then, from the two parts it merges (or from the reference table), at the end of
 * {@link DecodedTokens.bytes}. Memory a fresh process touches for the first time costs as much
 * as the decoding itself, so the bytes of the tokens never used are never touched either, and
 * where a token's bytes come from is not copied out per token: it is read, on first use, from
 * the decoded codes themselves (its kind, and its part codes or reference rank).
 */

/** The token is the concatenation of two tokens of lower rank. */
export const KIND_MERGE = 0;
/** The token's bytes are stored (single bytes, and any token with no lower-ranked split). */
export const KIND_LITERAL = 1;
/** The token is the reference table's token of the coded rank. */
export const KIND_REFERENCE = 2;
/** Kinds in the order their runs take turns in the rank data (merges first, see `rank-coding.ts`). */
export const KIND_CYCLE = 3;

/** Tokens by runs of one kind: run `i` is of kind `i % KIND_CYCLE`. */
export interface KindRuns {
  /** Each run's first rank, then the count of tokens (a run may be empty). */
  readonly starts: Int32Array;
  /** Per run: how many tokens of its kind rank below its first (its first's index in its kind). */
  readonly firsts: Int32Array;
}

/** What the decoder hands over; see the fields of {@link DecodedTokens}. */
export interface DecodedFields {
  readonly lengths: Uint8Array;
  readonly hashes: Int32Array;
  readonly maxTokenLength: number;
  readonly lastByteClasses: Uint8Array;
  /** The tokens' kinds ({@link KIND_MERGE}, {@link KIND_LITERAL}, {@link KIND_REFERENCE}) by runs. */
  readonly runs: KindRuns;
  /** The merged tokens' part codes and the part lists they index (see `rank-coding.ts`). */
  readonly left: Int32Array;
  readonly right: Int32Array;
  readonly parts: Int32Array;
  readonly partStarts: Int32Array;
  /** The referenced tokens' ranks in the reference table. */
  readonly references: Int32Array;
  /** Room for every token's bytes; the first `written` bytes are in use. */
  readonly bytes: Uint8Array;
  readonly written: number;
  /** Per token, 1 + where its bytes are once written, 0 before. */
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
  private readonly fields: DecodedFields;
  private readonly positions: Int32Array;
  private written: number;

  constructor(fields: DecodedFields) {
    this.lengths = fields.lengths;
    this.hashes = fields.hashes;
    this.maxTokenLength = fields.maxTokenLength;
    this.lastByteClasses = fields.lastByteClasses;
    this.bytes = fields.bytes;
    this.fields = fields;
    this.positions = fields.positions;
    this.written = fields.written;
  }

  /** Number of tokens. */
  get count(): number {
    return this.hashes.length;
  }

  /**
   * Where token `rank`'s bytes are in {@link bytes}, after writing them (its parts' first) if
   * they are not there yet. Recursion is as deep as the token is long at most: each part is
   * shorter than the token it makes. (Literal tokens are written by the decoder.)
   */
  position(rank: number): number {
    const written = this.positions[rank] as number;
    if (written !== 0) return written - 1;
    const { bytes, lengths } = this;
    const { runs, left, right, parts, partStarts } = this.fields;
    // The last run starting at or before `rank` holds it (empty runs start where the next does).
    let low = 0;
    let high = runs.firsts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if ((runs.starts[middle] as number) <= rank) low = middle;
      else high = middle - 1;
    }
    const kind = low % KIND_CYCLE;
    const index = (runs.firsts[low] as number) + rank - (runs.starts[low] as number);
    let at: number;
    if (kind === KIND_MERGE) {
      // The decoder checked these codes: both parts exist and rank below this token.
      const a = parts[left[index] as number] as number;
      const list = 1 + (this.lastByteClasses[a] as number);
      const b = parts[(partStarts[list] as number) + (right[index] as number)] as number;
      const leftAt = this.position(a);
      const rightAt = this.position(b);
      at = this.written;
      bytes.copyWithin(at, leftAt, leftAt + (lengths[a] as number));
      const rightStart = at + (lengths[a] as number);
      bytes.copyWithin(rightStart, rightAt, rightAt + (lengths[b] as number));
    } else {
      const reference = this.fields.reference;
      if (reference === undefined) throw new Error("this table needs its reference table");
      const from = reference.position(this.fields.references[index] as number);
      at = this.written;
      bytes.set(reference.bytes.subarray(from, from + (lengths[rank] as number)), at);
    }
    this.written = at + (lengths[rank] as number);
    this.positions[rank] = at + 1;
    return at;
  }

  /** The bytes of token `rank` (a view of {@link bytes}). */
  tokenBytes(rank: number): Uint8Array {
    const at = this.position(rank);
    return this.bytes.subarray(at, at + (this.lengths[rank] as number));
  }
}
