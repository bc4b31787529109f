/**
 * @module tokens/rank-coding
 * The compact form of a BPE rank table: written at build time from js-tiktoken's rank data
 * (`scripts/build-rank-data.ts`), read once per encoding on first use, usually in a process
 * that has just started, so decoding is laid out for code V8 has not optimized yet.
 *
 * Written by hand because no library does this: js-tiktoken ships every token as base64
 * text (2 MB gzipped for o200k and cl100k together in the Worker), and generic compressors
 * do little better on tokens listed by rank (gzip 1.4 MB, xz 1.06 MB): in rank order,
 * neighbouring tokens share almost nothing. What they do share is structure: a token of two
 * or more bytes is the concatenation of two tokens of lower rank (the pair BPE merged to make
 * it). So each token is coded as that pair, and each part by its position in a list of the
 * parts used on that side, most used first: one list of left parts, and one list of right parts
 * per class of the left part's last byte (after a space come word starts, after a letter word
 * endings). The lists are fixed (stored once, not rebuilt as the decoder goes), so a part is
 * one array read: decoding does no bookkeeping per token. A table can also name a reference
 * table and code its tokens by their rank there (cl100k_base by o200k_base, which holds 85% of
 * its tokens). Together this is about 0.9 MB gzipped.
 *
 * Every number is coded in a stream of `tokens/coded-numbers`; the tables are written by
 * `tokens/rank-encoding`. This module holds the format and reads it.
 */

import { type CodedNumbers, decodeNumbers, decodeRunningSums } from "./coded-numbers.js";
import {
  DecodedTokens,
  KIND_CYCLE,
  KIND_LITERAL,
  KIND_MERGE,
  KIND_REFERENCE,
  type KindRuns,
} from "./decoded-tokens.js";

export { KIND_CYCLE, KIND_LITERAL, KIND_MERGE, KIND_REFERENCE };

/** A rank table in compact form (see the module comment). Ranks are 0 to `count - 1`. */
export interface EncodedRanks {
  readonly count: number;
  /** Sum of the tokens' lengths in bytes. */
  readonly byteLength: number;
  /** Length of the longest token in bytes. */
  readonly maxTokenLength: number;
  /**
   * Each token's kind ({@link KIND_MERGE}, {@link KIND_LITERAL} or {@link KIND_REFERENCE}), by
   * runs: the lengths of runs of the three kinds in turn, merges first (a kind absent between two
   * others has a run of 0). One character per token was 200k of o200k_base's 1.12M characters,
   * which a fresh process scans and copies before its first count; naming each run's kind cost
   * cl100k_base 0.6 KiB gzipped more than this, all its runs alternating references and merges.
   */
  readonly kinds: CodedNumbers;
  /**
   * The part lists, left first, then right per class ({@link PART_LISTS} in all), as running
   * sums (each number the difference from the previous one): where each list ends, then every
   * list's parts in turn, each list's most used first (ties by rank, so ranks mostly rise).
   * No groups of equally used parts, sizes or counts: the decoder needs only the order, and the
   * running sums are added up in the numbers' own decoding loop (`decodeRunningSums`).
   */
  readonly parts: CodedNumbers;
  /** Position of each merged token's left part in the left list. */
  readonly left: CodedNumbers;
  /** Position of each merged token's right part in the right list of its class. */
  readonly right: CodedNumbers;
  /** Ranks in the reference table. */
  readonly references: CodedNumbers;
  /** Literal tokens' lengths and bytes. */
  readonly literals: CodedNumbers;
}

/**
 * Classes of a left part's last byte, each with its own list of right parts: space, lower-case
 * letter, capital, digit, byte of a multi-byte character, anything else.
 */
export const RIGHT_CLASSES = 6;
/** Lists in {@link EncodedRanks.parts}: the left list, then one right list per class. */
export const PART_LISTS = 1 + RIGHT_CLASSES;
/** The class of each byte value (a table: the decoder's loop makes no call for it). */
export const BYTE_CLASS = Uint8Array.from({ length: 256 }, (_, byte) => {
  if (byte === 32) return 0;
  if (byte >= 97 && byte <= 122) return 1;
  if (byte >= 65 && byte <= 90) return 2;
  if (byte >= 48 && byte <= 57) return 3;
  return byte >= 128 ? 4 : 5;
});
// The hash of byte strings that the decoder hands to the rank table: polynomial modulo 2^32, so
// that hash(a ‖ b) = hash(a) · M^|b| + hash(b) and a merged token's hash comes from its parts'
// in constant time, instead of hashing all 1.4 MB of o200k_base again.
const MULTIPLIER = 0x01000193;

/** The hash of `bytes[start..end)` (`DecodedTokens.hashes` holds each token's). */
export function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0;
  for (let i = start; i < end; i++) hash = (Math.imul(hash, MULTIPLIER) + (bytes[i] as number)) | 0;
  return hash;
}

/** `MULTIPLIER^i` modulo 2^32 for i = 0 to `maxLength`. */
function hashPowers(maxLength: number): Int32Array {
  const powers = new Int32Array(maxLength + 1);
  powers[0] = 1;
  for (let i = 1; i <= maxLength; i++) powers[i] = Math.imul(powers[i - 1] as number, MULTIPLIER);
  return powers;
}

/** The hash of the concatenation of two byte strings, from theirs. */
export function concatHash(left: number, right: number, rightLength: number): number {
  return (Math.imul(left, hashPowers(rightLength)[rightLength] as number) + right) | 0;
}

/** Spreads a hash's entropy into its low bits, which pick a table slot. */
export function mixHash(hash: number): number {
  let mixed = hash ^ (hash >>> 16);
  mixed = Math.imul(mixed, 0x7feb352d);
  mixed ^= mixed >>> 15;
  mixed = Math.imul(mixed, 0x846ca68b);
  return mixed ^ (mixed >>> 16);
}
/** The part lists of {@link EncodedRanks.parts}: list `k` is `parts[starts[k] .. starts[k + 1]]`. */
interface PartLists {
  readonly parts: Int32Array;
  readonly starts: Int32Array;
}

function decodePartLists(coded: CodedNumbers, count: number): PartLists {
  const { values, unsignedMax } = decodeRunningSums(coded);
  if (values.length < PART_LISTS) throw new RangeError("corrupt rank data: part lists end early");
  const starts = new Int32Array(PART_LISTS + 1);
  for (let list = 0; list < PART_LISTS; list++) {
    const listEnd = values[list] as number;
    if (listEnd < (starts[list] as number)) {
      throw new RangeError(`corrupt rank data: part list ${list + 1} ends before it starts`);
    }
    starts[list + 1] = listEnd;
  }
  const parts = values.subarray(PART_LISTS);
  const end = starts[PART_LISTS] as number;
  if (end > parts.length) throw new RangeError("corrupt rank data: part lists end early");
  if (end < parts.length) throw new RangeError("corrupt rank data: part lists too long");
  // The bound covers the ends too, which a small table's may pass: only then look further.
  if (unsignedMax >= count) {
    for (const rank of parts) {
      if (rank < 0 || rank >= count) {
        throw new RangeError(`corrupt rank data: no token ${rank} to be a part`);
      }
    }
  }
  return { parts, starts };
}
/** The runs of kinds (see {@link KindRuns}), checked against `count`. */
function decodeKinds(coded: CodedNumbers, count: number): KindRuns {
  const runs = decodeNumbers(coded);
  const starts = new Int32Array(runs.length + 1);
  const firsts = new Int32Array(runs.length);
  const before = new Int32Array(KIND_CYCLE);
  let rank = 0;
  for (let i = 0; i < runs.length; i++) {
    const length = runs[i] as number;
    if (rank + length > count) throw new RangeError("corrupt rank data: kinds do not match count");
    starts[i] = rank;
    firsts[i] = before[i % KIND_CYCLE] as number;
    before[i % KIND_CYCLE] = (before[i % KIND_CYCLE] as number) + length;
    rank += length;
  }
  starts[runs.length] = rank;
  if (rank !== count) throw new RangeError("corrupt rank data: kinds do not match count");
  return { starts, firsts };
}

/** What {@link decodeMerges} reads and fills. */
interface MergeTables {
  readonly left: Int32Array;
  readonly right: Int32Array;
  readonly parts: Int32Array;
  readonly partStarts: Int32Array;
  readonly lengths: Uint8Array;
  readonly hashes: Int32Array;
  readonly lastByteClasses: Uint8Array;
  readonly powers: Int32Array;
  readonly maxTokenLength: number;
}

/**
 * The length, hash and last byte's class of the merged tokens `start` to `end - 1`, whose part
 * codes start at `left[nextMerge]` (there are enough: the caller checked). Returns the sum of
 * their lengths. The hottest loop (~200k tokens for o200k) is a small function of its own: V8
 * optimizes a small function sooner and at less cost (measured: the loop inside `decodeRanks`
 * took ~2 ms more in a fresh process, and V8's background compilation ~7 ms more CPU).
 */
function decodeMerges(tables: MergeTables, start: number, end: number, nextMerge: number): number {
  const { left, right, parts, partStarts, lengths, hashes, lastByteClasses, powers } = tables;
  const { maxTokenLength } = tables;
  const leftLength = partStarts[1] as number;
  let total = 0;
  let next = nextMerge;
  for (let rank = start; rank < end; rank++) {
    const leftCode = left[next] as number;
    const a = leftCode < leftLength ? (parts[leftCode] as number) : rank;
    if (a >= rank) throw new RangeError(`corrupt rank data: bad parts for token ${rank}`);
    const list = 1 + (lastByteClasses[a] as number);
    const rightCode = (partStarts[list] as number) + (right[next++] as number);
    const b = rightCode < (partStarts[list + 1] as number) ? (parts[rightCode] as number) : rank;
    if (b >= rank) throw new RangeError(`corrupt rank data: bad parts for token ${rank}`);
    const bLength = lengths[b] as number;
    const length = (lengths[a] as number) + bLength;
    if (length > maxTokenLength) {
      throw new RangeError(`corrupt rank data: token ${rank} is longer than the longest`);
    }
    hashes[rank] =
      (Math.imul(hashes[a] as number, powers[bLength] as number) + (hashes[b] as number)) | 0;
    lastByteClasses[rank] = lastByteClasses[b] as number;
    lengths[rank] = length;
    total += length;
  }
  return total;
}

/**
 * The tokens of an {@link encodeRanks} result, in one linear pass: lengths and hashes (each
 * from its parts'), their bytes on first use. `reference` is the decoded reference table when
 * the data was encoded with one. Throws on corrupt data.
 */
export function decodeRanks(encoded: EncodedRanks, reference?: DecodedTokens): DecodedTokens {
  const { count, maxTokenLength } = encoded;
  const runs = decodeKinds(encoded.kinds, count);
  if (maxTokenLength > 255) throw new RangeError("rank data with tokens over 255 bytes long");
  const { parts, starts } = decodePartLists(encoded.parts, count);
  const references = decodeNumbers(encoded.references);
  const literals = decodeNumbers(encoded.literals);
  // The numbers are decoded in loops of their own: reading them inside the token loop instead
  // made decoding slower in a fresh process (measured), though it spares two arrays.
  const left = decodeNumbers(encoded.left);
  const right = decodeNumbers(encoded.right);
  if (left.length !== right.length) {
    throw new RangeError("corrupt rank data: part codes do not pair up");
  }
  const lengths = new Uint8Array(count);
  const hashes = new Int32Array(count);
  const lastByteClasses = new Uint8Array(count);
  // Only literal tokens are written now; the others' room is touched when they are written.
  const bytes = new Uint8Array(encoded.byteLength);
  const positions = new Int32Array(count);
  const powers = hashPowers(maxTokenLength);
  const merges: MergeTables = {
    left,
    right,
    parts,
    partStarts: starts,
    lengths,
    hashes,
    lastByteClasses,
    powers,
    maxTokenLength,
  };
  const referenceLengths = reference?.lengths ?? new Uint8Array(0);
  const referenceHashes = reference?.hashes ?? new Int32Array(0);
  const referenceClasses = reference?.lastByteClasses ?? new Uint8Array(0);
  let nextMerge = 0;
  let nextReference = 0;
  let nextLiteral = 0;
  let total = 0;
  let written = 0;

  // The hot loops (~200k tokens for o200k, run once, much of it before V8 optimizes them): a
  // loop per run of one kind (o200k_base has one run of literals and one of merges), no calls
  // inside, no inner loops but a literal's bytes, typed arrays only.
  for (let run = 0; run + 1 < runs.starts.length; run++) {
    const kind = run % KIND_CYCLE;
    const end = runs.starts[run + 1] as number;
    if (kind === KIND_MERGE) {
      const start = runs.starts[run] as number;
      if (nextMerge + (end - start) > left.length) {
        throw new RangeError("corrupt rank data: part codes do not match the merged tokens");
      }
      total += decodeMerges(merges, start, end, nextMerge);
      nextMerge += end - start;
    } else if (kind === KIND_REFERENCE) {
      if (reference === undefined && end > (runs.starts[run] as number)) {
        throw new Error("this rank data needs its reference table");
      }
      for (let rank = runs.starts[run] as number; rank < end; rank++) {
        const other =
          nextReference < references.length ? (references[nextReference++] as number) : -1;
        if (other < 0 || other >= referenceLengths.length) {
          throw new RangeError(`corrupt rank data: no token ${other} in the reference table`);
        }
        const length = referenceLengths[other] as number;
        if (length > maxTokenLength) {
          throw new RangeError(`corrupt rank data: token ${rank} is longer than the longest`);
        }
        hashes[rank] = referenceHashes[other] as number;
        lastByteClasses[rank] = referenceClasses[other] as number;
        lengths[rank] = length;
        total += length;
      }
    } else {
      for (let rank = runs.starts[run] as number; rank < end; rank++) {
        const length = nextLiteral < literals.length ? (literals[nextLiteral++] as number) : 0;
        if (
          length === 0 ||
          nextLiteral + length > literals.length ||
          written + length > bytes.length
        ) {
          throw new RangeError(`corrupt rank data: no bytes for token ${rank}`);
        }
        if (length > maxTokenLength) {
          throw new RangeError(`corrupt rank data: token ${rank} is longer than the longest`);
        }
        let hash = 0;
        positions[rank] = written + 1;
        for (let i = 0; i < length; i++) {
          const byte = literals[nextLiteral++] as number;
          hash = (Math.imul(hash, MULTIPLIER) + byte) | 0;
          bytes[written++] = byte;
        }
        hashes[rank] = hash;
        lastByteClasses[rank] = BYTE_CLASS[bytes[written - 1] as number] as number;
        lengths[rank] = length;
        total += length;
      }
    }
  }
  if (total !== bytes.length) throw new RangeError("corrupt rank data: lengths do not add up");
  if (nextMerge !== left.length) {
    throw new RangeError("corrupt rank data: part codes do not match the merged tokens");
  }
  return new DecodedTokens({
    lengths,
    hashes,
    maxTokenLength,
    lastByteClasses,
    runs,
    left,
    right,
    parts,
    partStarts: starts,
    references,
    bytes,
    written,
    positions,
    reference,
  });
}
