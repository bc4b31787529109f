/**
 * @module tokens/rank-coding
 * The compact form of a BPE rank table: written at build time from js-tiktoken's rank data
 * (`scripts/build-rank-data.ts`), read once per encoding on first use.
 *
 * Written by hand because no library does this: js-tiktoken ships every token as base64
 * text (2 MB gzipped for o200k and cl100k together in the Worker), and generic compressors
 * do little better on tokens listed by rank (gzip 1.4 MB, xz 1.06 MB): in rank order,
 * neighbouring tokens share almost nothing. What they do share is structure: a token of two
 * or more bytes is the concatenation of two tokens of lower rank (the pair BPE merged to make
 * it). So each token is coded as that pair, and each part by its position in a list of parts
 * ordered by how often they were used so far (adaptive: nothing but the codes is stored), with
 * one list for left parts and one for right parts per class of the left part's last byte.
 * A table can also name a reference table and code its tokens by their rank there
 * (cl100k_base by o200k_base, which holds 85% of its tokens). Together this is 0.92 MB
 * gzipped, and decoding is a single linear pass.
 *
 * Every number is coded as its bit length (a symbol, one printable character per number,
 * in a stream gzip compresses well) and the bits below its leading one (a bit stream, base64,
 * which gzip leaves at its entropy). All fields are plain ASCII strings, so a data module
 * embeds them as string literals.
 */

/**
 * Numbers coded as bit lengths (one symbol character each) and the bits below their leading
 * one (base64). Each stream has its own bits, so a stream decodes in one tight loop.
 */
export interface CodedNumbers {
  readonly symbols: string;
  readonly bits: string;
}

/** A rank table in compact form (see the module comment). Ranks are 0 to `count - 1`. */
export interface EncodedRanks {
  readonly count: number;
  /** Sum of the tokens' lengths in bytes. */
  readonly byteLength: number;
  /** One symbol per token: {@link KIND_MERGE}, {@link KIND_LITERAL} or {@link KIND_REFERENCE}. */
  readonly kinds: string;
  /** Codes of the left parts (0: first use on this side, its rank is next in `fresh`). */
  readonly left: CodedNumbers;
  /** Codes of the right parts. */
  readonly right: CodedNumbers;
  /** Ranks of parts used for the first time on their side. */
  readonly fresh: CodedNumbers;
  /** Ranks in the reference table. */
  readonly references: CodedNumbers;
  /** Literal tokens' lengths and bytes. */
  readonly literals: CodedNumbers;
}

/** Tokens in rank order: token `r` is `bytes[offsets[r] .. offsets[r + 1]]`, with hash `hashes[r]`. */
export interface TokenBytes {
  readonly bytes: Uint8Array;
  readonly offsets: Uint32Array;
  /** {@link hashBytes} of each token. */
  readonly hashes: Int32Array;
}

/** The token is the concatenation of two tokens of lower rank. */
export const KIND_MERGE = "0";
/** The token's bytes are stored (single bytes, and any token with no lower-ranked split). */
export const KIND_LITERAL = "1";
/** The token is the reference table's token of the coded rank. */
export const KIND_REFERENCE = "2";
const MERGE_CODE = KIND_MERGE.charCodeAt(0);
const LITERAL_CODE = KIND_LITERAL.charCodeAt(0);
const REFERENCE_CODE = KIND_REFERENCE.charCodeAt(0);

// Symbol k (a bit length, 0-24) is the character SYMBOL_BASE + k: digits and capitals, no escapes.
const SYMBOL_BASE = 48;
// The bit reader takes up to 24 bits at once; ranks of 200k tokens need 18.
const MAX_CODED_BITS = 24;

/**
 * Symbols ordered by how often they were used, most used first; a symbol's code is its
 * position + 1 (0 = not used yet). Encoder and decoder update it identically after each use,
 * so frequent parts get small codes without any frequency table being stored. O(1) per use:
 * positions with the same count form a block, and a used symbol swaps to the front of its
 * block before its count grows. Decoding is bound by memory latency, so each position keeps
 * its symbol and count side by side, and only the encoder maps symbols back to positions.
 */
export class UsageList {
  /** `[symbol, count]` per position. */
  private readonly entries: Int32Array;
  /** Position + 1 of each symbol, 0 if unused (encoder only). */
  private readonly positions: Int32Array | undefined;
  /** First position + 1 of the block of symbols used `count` times, 0 if none. */
  private readonly blockStart: Int32Array;
  private length = 0;

  /**
   * For symbols 0 to `symbols - 1`. The arrays are not filled (0 means "none"), so the pages
   * of a list that stays small are never touched: a decoder can afford several lists.
   */
  constructor(symbols: number, options: { trackPositions: boolean }) {
    this.entries = new Int32Array(2 * symbols);
    this.positions = options.trackPositions ? new Int32Array(symbols) : undefined;
    this.blockStart = new Int32Array(symbols + 2);
  }

  /** The code of `symbol` (needs `trackPositions`). */
  codeOf(symbol: number): number {
    return this.positions?.[symbol] ?? 0;
  }

  /** The symbol of a code other than 0. */
  symbolOf(code: number): number {
    if (code < 1 || code > this.length) throw new RangeError(`no symbol has code ${code}`);
    return this.entries[2 * (code - 1)] as number;
  }

  /** Counts one use of the symbol with this code, or of a new `symbol` when the code is 0. */
  use(code: number, symbol: number): void {
    const entries = this.entries;
    const positions = this.positions;
    const blockStart = this.blockStart;
    let at = code - 1;
    if (code === 0) {
      at = this.length++;
      entries[2 * at] = symbol;
      entries[2 * at + 1] = 0;
      if (blockStart[0] === 0) blockStart[0] = at + 1;
    }
    const count = entries[2 * at + 1] as number;
    const front = (blockStart[count] as number) - 1;
    const other = entries[2 * front] as number;
    entries[2 * front] = symbol;
    entries[2 * front + 1] = count + 1;
    entries[2 * at] = other;
    if (positions) {
      positions[other] = at + 1;
      positions[symbol] = front + 1;
    }
    blockStart[count] = front + 1 < this.length && entries[2 * front + 3] === count ? front + 2 : 0;
    if (blockStart[count + 1] === 0) blockStart[count + 1] = front + 1;
  }
}

/**
 * Right parts are coded in one usage list per class of the left part's last byte: after a
 * space come word starts, after a letter word endings, after `.` file extensions.
 */
export const RIGHT_CONTEXTS = 6;
function rightContext(lastByte: number): number {
  if (lastByte === 32) return 0;
  if (lastByte >= 97 && lastByte <= 122) return 1;
  if (lastByte >= 65 && lastByte <= 90) return 2;
  if (lastByte >= 48 && lastByte <= 57) return 3;
  return lastByte >= 128 ? 4 : 5;
}

// The hash of byte strings that the decoder hands to the rank table: polynomial modulo 2^32, so
// that hash(a ‖ b) = hash(a) · M^|b| + hash(b) and a merged token's hash comes from its parts'
// in constant time, instead of hashing all 1.4 MB of o200k_base again.
const MULTIPLIER = 0x01000193;
let powers = Int32Array.of(1);

/** The hash of `bytes[start..end)` ({@link TokenBytes.hashes} holds each token's). */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0;
  for (let i = start; i < end; i++) hash = (Math.imul(hash, MULTIPLIER) + (bytes[i] as number)) | 0;
  return hash;
}

/** The hash of the concatenation of two byte strings, from theirs. */
export function concatHash(left: number, right: number, rightLength: number): number {
  if (rightLength >= powers.length) growPowers(rightLength);
  return (Math.imul(left, powers[rightLength] as number) + right) | 0;
}

function growPowers(length: number): void {
  const grown = new Int32Array(Math.max(length + 1, 2 * powers.length));
  grown.set(powers);
  for (let i = powers.length; i < grown.length; i++) {
    grown[i] = Math.imul(grown[i - 1] as number, MULTIPLIER);
  }
  powers = grown;
}

/** Spreads a hash's entropy into its low bits, which pick a table slot. */
export function mixHash(hash: number): number {
  let mixed = hash ^ (hash >>> 16);
  mixed = Math.imul(mixed, 0x7feb352d);
  mixed ^= mixed >>> 15;
  mixed = Math.imul(mixed, 0x846ca68b);
  return mixed ^ (mixed >>> 16);
}

const bitLength = (value: number): number => 32 - Math.clz32(value);
// Approximate cost in bits of a part's code beyond its bit length, for choosing between splits:
// a part's first use costs its rank (plus the 0 code), a known part its usage code.
const FRESH_EXTRA_BITS = 3;

// No parameter properties in this module: the build step imports it with Node's type stripping.
class NumberWriter {
  private readonly symbols: string[] = [];
  private readonly bytes: number[] = [];
  private current = 0;
  private used = 0;

  write(value: number): void {
    if (!Number.isInteger(value) || value < 0 || value >= 2 ** MAX_CODED_BITS) {
      throw new RangeError(`cannot code ${value}: integers 0 to 2^${MAX_CODED_BITS} - 1 only`);
    }
    const length = bitLength(value);
    this.symbols.push(String.fromCharCode(SYMBOL_BASE + length));
    for (let bit = length - 2; bit >= 0; bit--) {
      this.current = (this.current << 1) | ((value >>> bit) & 1);
      if (++this.used === 8) {
        this.bytes.push(this.current);
        this.current = 0;
        this.used = 0;
      }
    }
  }

  finish(): CodedNumbers {
    const bytes = [...this.bytes];
    if (this.used > 0) bytes.push(this.current << (8 - this.used));
    let binary = "";
    for (let i = 0; i < bytes.length; i += 8192) {
      binary += String.fromCharCode(...bytes.slice(i, i + 8192));
    }
    return { symbols: this.symbols.join(""), bits: btoa(binary) };
  }
}

/** Every number of a stream, in one loop over locals (hot: ~600k numbers for o200k). */
function decodeNumbers(coded: CodedNumbers): Int32Array {
  const { symbols } = coded;
  const binary = atob(coded.bits);
  const values = new Int32Array(symbols.length);
  let next = 0;
  let buffer = 0;
  let buffered = 0;
  for (let i = 0; i < symbols.length; i++) {
    const length = symbols.charCodeAt(i) - SYMBOL_BASE;
    if (length <= 1) {
      if (length < 0) throw new RangeError("corrupt rank data: a bad symbol");
      values[i] = length;
      continue;
    }
    if (length > MAX_CODED_BITS) throw new RangeError("corrupt rank data: a bad symbol");
    const width = length - 1;
    while (buffered < width) {
      if (next >= binary.length) throw new RangeError("corrupt rank data: bits end early");
      // Only the unread low bits are kept, so the buffer stays within 31 bits (a small integer).
      buffer = ((buffer & ((1 << buffered) - 1)) << 8) | binary.charCodeAt(next++);
      buffered += 8;
    }
    buffered -= width;
    values[i] = (1 << width) | ((buffer >>> buffered) & ((1 << width) - 1));
  }
  return values;
}

const latin1 = (bytes: Uint8Array): string => {
  let out = "";
  for (const byte of bytes) out += String.fromCharCode(byte);
  return out;
};

/**
 * The compact form of `tokens` (index = rank). With `reference`, a token it also holds is coded
 * by its rank there. Throws if a token repeats or is empty (rank tables have neither).
 */
export function encodeRanks(
  tokens: readonly Uint8Array[],
  reference?: readonly Uint8Array[],
): EncodedRanks {
  const rankOf = new Map<string, number>();
  let byteLength = 0;
  tokens.forEach((token, rank) => {
    const key = latin1(token);
    if (token.length === 0) throw new Error(`token ${rank} is empty`);
    if (rankOf.has(key)) throw new Error(`token ${rank} repeats token ${rankOf.get(key)}`);
    rankOf.set(key, rank);
    byteLength += token.length;
  });
  const referenceRankOf = new Map<string, number>();
  reference?.forEach((token, rank) => {
    referenceRankOf.set(latin1(token), rank);
  });

  const left = new NumberWriter();
  const right = new NumberWriter();
  const fresh = new NumberWriter();
  const references = new NumberWriter();
  const literals = new NumberWriter();
  const kinds: string[] = [];
  const leftParts = new UsageList(tokens.length, { trackPositions: true });
  const rightParts = Array.from(
    { length: RIGHT_CONTEXTS },
    () => new UsageList(tokens.length, { trackPositions: true }),
  );
  const codePart = (list: UsageList, writer: NumberWriter, part: number): void => {
    const code = list.codeOf(part);
    writer.write(code);
    if (code === 0) fresh.write(part);
    list.use(code, part);
  };

  const partCost = (list: UsageList, part: number): number => {
    const code = list.codeOf(part);
    return code === 0 ? FRESH_EXTRA_BITS + bitLength(part) : bitLength(code);
  };
  tokens.forEach((token, rank) => {
    const key = latin1(token);
    const referenceRank = referenceRankOf.get(key);
    if (referenceRank !== undefined) {
      kinds.push(KIND_REFERENCE);
      references.write(referenceRank);
      return;
    }
    // Any split into two lower-ranked tokens rebuilds the bytes: take the one whose parts
    // code shortest now (parts used often before, or else of low rank).
    let best: [number, number] | undefined;
    let bestCost = Infinity;
    for (let cut = 1; cut < key.length; cut++) {
      const a = rankOf.get(key.slice(0, cut));
      const b = rankOf.get(key.slice(cut));
      if (a === undefined || b === undefined || a >= rank || b >= rank) continue;
      const context = rightContext(key.charCodeAt(cut - 1));
      const cost = partCost(leftParts, a) + partCost(rightParts[context] as UsageList, b);
      if (cost < bestCost) {
        bestCost = cost;
        best = [a, b];
      }
    }
    if (best === undefined) {
      kinds.push(KIND_LITERAL);
      literals.write(token.length);
      for (const byte of token) literals.write(byte);
      return;
    }
    kinds.push(KIND_MERGE);
    const leftToken = tokens[best[0]] as Uint8Array;
    codePart(leftParts, left, best[0]);
    codePart(
      rightParts[rightContext(leftToken[leftToken.length - 1] as number)] as UsageList,
      right,
      best[1],
    );
  });

  return {
    count: tokens.length,
    byteLength,
    kinds: kinds.join(""),
    left: left.finish(),
    right: right.finish(),
    fresh: fresh.finish(),
    references: references.finish(),
    literals: literals.finish(),
  };
}

/**
 * The tokens of an {@link encodeRanks} result, in one linear pass. `reference` is the decoded
 * reference table when the data was encoded with one. Throws on corrupt data.
 */
export function decodeRanks(encoded: EncodedRanks, reference?: TokenBytes): TokenBytes {
  const { count, kinds } = encoded;
  const left = decodeNumbers(encoded.left);
  const right = decodeNumbers(encoded.right);
  const fresh = decodeNumbers(encoded.fresh);
  const references = decodeNumbers(encoded.references);
  const literals = decodeNumbers(encoded.literals);
  const leftParts = new UsageList(count, { trackPositions: false });
  const rightParts = Array.from(
    { length: RIGHT_CONTEXTS },
    () => new UsageList(count, { trackPositions: false }),
  );
  const bytes = new Uint8Array(encoded.byteLength);
  const offsets = new Uint32Array(count + 1);
  const hashes = new Int32Array(count);
  const referenceBytes = reference?.bytes ?? new Uint8Array(0);
  const referenceOffsets = reference?.offsets ?? new Uint32Array(1);
  let nextLeft = 0;
  let nextRight = 0;
  let nextFresh = 0;
  let nextReference = 0;
  let nextLiteral = 0;
  let end = 0;
  if (kinds.length !== count) throw new RangeError("corrupt rank data: kinds do not match count");

  for (let rank = 0; rank < count; rank++) {
    const kind = kinds.charCodeAt(rank);
    let source: Uint8Array = bytes;
    let from = 0;
    let to = 0;
    if (kind === MERGE_CODE) {
      const leftCode = left[nextLeft++] ?? -1;
      const a = leftCode === 0 ? (fresh[nextFresh++] ?? -1) : leftParts.symbolOf(leftCode);
      if (a < 0 || a >= rank)
        throw new RangeError(`corrupt rank data: bad parts for token ${rank}`);
      leftParts.use(leftCode, a);
      // Tokens are short: loops beat copyWithin's call overhead.
      const aEnd = offsets[a + 1] as number;
      for (let i = offsets[a] as number; i < aEnd; i++) bytes[end++] = bytes[i] as number;
      const context = rightParts[rightContext(bytes[end - 1] as number)] as UsageList;
      const rightCode = right[nextRight++] ?? -1;
      const b = rightCode === 0 ? (fresh[nextFresh++] ?? -1) : context.symbolOf(rightCode);
      if (b < 0 || b >= rank)
        throw new RangeError(`corrupt rank data: bad parts for token ${rank}`);
      context.use(rightCode, b);
      from = offsets[b] as number;
      to = offsets[b + 1] as number;
      hashes[rank] = concatHash(hashes[a] as number, hashes[b] as number, to - from);
    } else if (kind === REFERENCE_CODE) {
      if (reference === undefined) throw new Error("this rank data needs its reference table");
      const other = references[nextReference++] ?? -1;
      if (other < 0 || other + 1 >= referenceOffsets.length) {
        throw new RangeError(`corrupt rank data: no token ${other} in the reference table`);
      }
      source = referenceBytes;
      from = referenceOffsets[other] as number;
      to = referenceOffsets[other + 1] as number;
      hashes[rank] = reference.hashes[other] as number;
    } else if (kind === LITERAL_CODE) {
      const length = literals[nextLiteral++] ?? 0;
      source = Uint8Array.from(literals.subarray(nextLiteral, nextLiteral + length));
      nextLiteral += length;
      to = length;
    } else {
      throw new RangeError(`corrupt rank data: token ${rank} has no kind`);
    }
    if (end + to - from > bytes.length) throw new RangeError("corrupt rank data: too many bytes");
    for (let i = from; i < to; i++) bytes[end++] = source[i] as number;
    if (kind === LITERAL_CODE) hashes[rank] = hashBytes(bytes, end - to, end);
    offsets[rank + 1] = end;
  }
  if (end !== bytes.length) throw new RangeError("corrupt rank data: too few bytes");
  return { bytes, offsets, hashes };
}
