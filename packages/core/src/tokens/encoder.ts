/**
 * @module tokens/encoder
 * Exact token counts for OpenAI's `o200k_base` and `cl100k_base` encodings, and the
 * choice of encoding (with a safety margin for non-OpenAI models) for a model name.
 *
 * Counts are identical to js-tiktoken's `Tiktoken.encode(text, [], []).length` (the tests
 * check this on real transcripts and random text): we use its rank data (in the compact form
 * of `rank-coding.ts`, built from it by `scripts/build-rank-data.ts`) and its pre-tokenizer
 * pattern, but not its merge loop. That loop rebuilds byte-array keys on every step and is
 * quadratic in the length of each pre-token piece (6,000 `a`s take seconds; 1 MB of base64
 * takes ~0.8 s), so a hostile tool output could stall a Worker. Here each piece is merged
 * with a heap in O(n log n) on its UTF-8 bytes, short pieces are memoised, and no text is
 * split at arbitrary points, so there is no approximation error either.
 *
 * An encoding's rank table is decoded on first use only, once (a few milliseconds).
 */

import { normalizeModelName } from "../models/model-name.js";
import { asciiPattern, isAscii } from "./ascii-pattern.js";
import type { DecodedTokens } from "./decoded-tokens.js";
import { decodeRanks, type EncodedRanks } from "./rank-coding.js";
import * as cl100kBase from "./rank-data/cl100k-base.js";
import * as o200kBase from "./rank-data/o200k-base.js";
import { RankTable } from "./rank-table.js";

export type EncodingName = "o200k_base" | "cl100k_base";

/** Which tokenizer to count a model's text with, and how much to add because it is an estimate. */
export interface EncodingInfo {
  readonly encoding: EncodingName;
  /** True when the model really uses this tokenizer (OpenAI models); counts are then exact. */
  readonly exact: boolean;
  /** Fraction added to counts (`ceil(count * (1 + safetyMargin))`); 0 when exact. */
  readonly safetyMargin: number;
}

interface RankSource {
  readonly pattern: string;
  /** Builds the compact form's strings (on first use: see the data modules). */
  readonly ranks: () => EncodedRanks;
  /** The table the compact form codes shared tokens against (see `build-rank-data.ts`). */
  readonly reference?: EncodingName;
}

interface Bpe {
  table: RankTable;
  /** The encoding's pre-tokenizer; global and sticky-free, reset before each use. Made on first use. */
  pattern: RegExp | undefined;
  /** The same for ASCII text (see `ascii-pattern.ts`), much faster to compile. Made on first use. */
  asciiPattern: RegExp | undefined;
  /** Token count per short piece: most pieces of real text are frequent words. */
  pieceCache: Map<string, number>;
}

// Both data modules are imported statically: counting is synchronous, so a dynamic import()
// could not serve the first count of a cl100k model. Their strings sit inside `ranks()`, which V8
// only scans at import; they are built and decoded when the encoding is first counted with.
const sources: Record<EncodingName, RankSource> = {
  o200k_base: o200kBase,
  cl100k_base: { ...cl100kBase, reference: "o200k_base" },
};

const decoded = new Map<EncodingName, DecodedTokens>();
const loaded = new Map<EncodingName, Bpe>();
let textsEncoded = 0;

const PIECE_CACHE_LIMIT = 100_000;
const MAX_CACHED_PIECE_LENGTH = 64;
// Heap keys pack `rank * 2^32 + position`; ranks stay below 2^20, so keys stay exact doubles.
const RANK_SHIFT = 4_294_967_296;

function tokensOf(encoding: EncodingName): DecodedTokens {
  const existing = decoded.get(encoding);
  if (existing) return existing;
  const { ranks, reference } = sources[encoding];
  const tokens = decodeRanks(ranks(), reference === undefined ? undefined : tokensOf(reference));
  decoded.set(encoding, tokens);
  return tokens;
}

function load(encoding: EncodingName): Bpe {
  const existing = loaded.get(encoding);
  if (existing) return existing;
  const bpe: Bpe = {
    table: new RankTable(tokensOf(encoding)),
    pattern: undefined,
    asciiPattern: undefined,
    pieceCache: new Map(),
  };
  loaded.set(encoding, bpe);
  return bpe;
}

/**
 * Number of tokens `text` encodes to with `encoding`, exactly as OpenAI counts it (special
 * token strings such as `<|endoftext|>` count as ordinary text, as they do in user content).
 * Linear-time up to a log factor on any input.
 */
export function countTextTokens(text: string, encoding: EncodingName): number {
  textsEncoded++;
  if (text.length === 0) return 0;
  const bpe = load(encoding);
  const pattern = preTokenizer(bpe, encoding, isAscii(text));
  pattern.lastIndex = 0;
  let total = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const piece = match[0];
    if (piece.length === 0) {
      // The patterns never match empty, but a zero-width match would loop forever.
      pattern.lastIndex++;
      continue;
    }
    total += pieceTokens(bpe, piece);
  }
  return total;
}

function preTokenizer(bpe: Bpe, encoding: EncodingName, ascii: boolean): RegExp {
  if (ascii) {
    if (bpe.asciiPattern === undefined) {
      bpe.asciiPattern = new RegExp(asciiPattern(sources[encoding].pattern), "gu");
    }
    return bpe.asciiPattern;
  }
  if (bpe.pattern === undefined) bpe.pattern = new RegExp(sources[encoding].pattern, "gu");
  return bpe.pattern;
}

/** Counters for tests: how many texts were tokenized and which encodings have been built. */
export function encoderStats(): { textsEncoded: number; loaded: EncodingName[] } {
  return { textsEncoded, loaded: [...loaded.keys()] };
}

function pieceTokens(bpe: Bpe, piece: string): number {
  const cached = bpe.pieceCache.get(piece);
  if (cached !== undefined) return cached;
  const bytes = utf8Bytes(piece);
  const table = bpe.table;
  const count =
    bytes.length === 1 || table.rankOf(bytes, 0, bytes.length) >= 0
      ? 1
      : bytes.length <= SHORT_PIECE
        ? scanMergeCount(bytes, table)
        : mergeCount(bytes, table);
  if (piece.length <= MAX_CACHED_PIECE_LENGTH) {
    // Clearing is cruder than LRU but O(1) and the cache refills from the next text.
    if (bpe.pieceCache.size >= PIECE_CACHE_LIMIT) bpe.pieceCache.clear();
    bpe.pieceCache.set(piece, count);
  }
  return count;
}

const utf8 = new TextEncoder();
// Reused for pieces up to this many bytes; a longer piece gets a buffer of its own, not kept.
const RETAINED_BUFFER_BYTES = 65_536;
let pieceBuffer = new Uint8Array(1024);

/** The UTF-8 bytes of `piece`, in a buffer that the next call overwrites. */
function utf8Bytes(piece: string): Uint8Array {
  const maxBytes = piece.length * 3;
  let buffer = pieceBuffer;
  if (maxBytes > buffer.length) {
    buffer = new Uint8Array(Math.max(maxBytes, 2 * buffer.length));
    if (buffer.length <= RETAINED_BUFFER_BYTES) pieceBuffer = buffer;
  }
  for (let i = 0; i < piece.length; i++) {
    const code = piece.charCodeAt(i);
    // TextEncoder turns lone surrogates into U+FFFD, exactly as js-tiktoken does.
    if (code > 0x7f) return buffer.subarray(0, utf8.encodeInto(piece, buffer).written);
    buffer[i] = code;
  }
  return buffer.subarray(0, piece.length);
}

// Below this many bytes a plain rescan beats the heap's bookkeeping.
const SHORT_PIECE = 24;
const scanStarts: number[] = [];
const scanRanks: number[] = [];

/** tiktoken's own merge loop (quadratic, fine for short pieces), on reused scratch arrays. */
function scanMergeCount(bytes: Uint8Array, table: RankTable): number {
  const n = bytes.length;
  const starts = scanStarts;
  const pairRanks = scanRanks;
  starts.length = 0;
  pairRanks.length = 0;
  for (let i = 0; i <= n; i++) starts.push(i);
  for (let i = 0; i + 1 < n; i++) pairRanks.push(rankOrInfinity(table, bytes, i, i + 2));
  // starts has parts+1 entries (the last is n); pairRanks[k] ranks merging parts k and k+1.
  for (;;) {
    let best = Infinity;
    let at = -1;
    for (let k = 0; k < pairRanks.length; k++) {
      const r = pairRanks[k] as number;
      if (r < best) {
        best = r;
        at = k;
      }
    }
    if (at < 0) break;
    starts.splice(at + 1, 1);
    pairRanks.splice(at, 1);
    const parts = starts.length - 1;
    if (at < parts - 1) {
      pairRanks[at] = rankOrInfinity(table, bytes, starts[at] as number, starts[at + 2] as number);
    }
    if (at > 0) {
      pairRanks[at - 1] = rankOrInfinity(
        table,
        bytes,
        starts[at - 1] as number,
        starts[at + 1] as number,
      );
    }
  }
  return starts.length - 1;
}

function rankOrInfinity(table: RankTable, bytes: Uint8Array, start: number, end: number): number {
  const rank = table.rankOf(bytes, start, end);
  return rank < 0 ? Infinity : rank;
}

/**
 * Byte-pair merge with tiktoken's rule (repeatedly merge the adjacent pair with the lowest
 * rank, leftmost first) but driven by a heap of candidate pairs instead of a full rescan per
 * merge. Entries are validated lazily: an entry `(rank, start)` is current iff the pair now
 * starting at `start` still has that rank (ranks identify byte sequences uniquely).
 */
function mergeCount(bytes: Uint8Array, table: RankTable): number {
  const n = bytes.length;
  // next[i]: end (exclusive) of the part starting at i, or -1 once i is merged into its left neighbour.
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const heap = new MinHeap();
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
    if (i + 1 < n) {
      const rank = table.rankOf(bytes, i, i + 2);
      if (rank >= 0) heap.push(rank * RANK_SHIFT + i);
    }
  }
  let parts = n;
  while (heap.size > 0) {
    const key = heap.pop();
    const rank = Math.floor(key / RANK_SHIFT);
    const start = key - rank * RANK_SHIFT;
    const mid = next[start] ?? -1;
    if (mid < 0 || mid >= n) continue;
    const end = next[mid] ?? n;
    if (table.rankOf(bytes, start, end) !== rank) continue;
    next[start] = end;
    next[mid] = -1;
    if (end < n) prev[end] = start;
    parts--;
    const before = prev[start] ?? -1;
    if (before >= 0) {
      const left = table.rankOf(bytes, before, end);
      if (left >= 0) heap.push(left * RANK_SHIFT + before);
    }
    if (end < n) {
      const right = table.rankOf(bytes, start, next[end] ?? n);
      if (right >= 0) heap.push(right * RANK_SHIFT + start);
    }
  }
  return parts;
}

/** Binary min-heap of numbers. */
class MinHeap {
  private readonly items: number[] = [];

  get size(): number {
    return this.items.length;
  }

  push(value: number): void {
    const items = this.items;
    let i = items.length;
    items.push(value);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent] as number;
      if (p <= value) break;
      items[i] = p;
      i = parent;
    }
    items[i] = value;
  }

  /** Removes and returns the smallest item; callers check `size` first. */
  pop(): number {
    const items = this.items;
    const top = items[0] as number;
    const last = items.pop() as number;
    const n = items.length;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      let c = items[left] as number;
      if (right < n) {
        const r = items[right] as number;
        if (r < c) {
          child = right;
          c = r;
        }
      }
      if (c >= last) break;
      items[i] = c;
      i = child;
    }
    items[i] = last;
    return top;
  }
}

// --- model → encoding -------------------------------------------------------------------

// OpenAI models on o200k_base: GPT-4o/4.1/4.5/5.x, the o-series, gpt-oss, realtime/audio, codex-mini.
const o200kModels =
  /^(?:gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|chatgpt-4o|o[1-9](?:-|$)|gpt-realtime|gpt-audio|codex-mini|computer-use)/;
// OpenAI models on cl100k_base: GPT-4 (non-o), GPT-3.5 (`gpt-35` on Azure), current embeddings.
const cl100kModels = /^(?:gpt-4|gpt-3\.5|gpt-35|text-embedding-3|text-embedding-ada-002)/;

/**
 * Other families are counted with o200k_base and padded, because their tokenizers are not
 * public or not shipped here. Margins are deliberately on the high side: overestimating only
 * compacts a little early, underestimating gets the request rejected.
 */
const estimatedFamilies: ReadonlyArray<{ pattern: RegExp; margin: number }> = [
  // Claude's tokenizer is not public; on English and code it yields noticeably more tokens
  // than o200k (roughly 10-20% in practice, more on some content), so pad by 15%.
  { pattern: /^claude/, margin: 0.15 },
  // Gemini/Gemma use a 256k SentencePiece vocabulary, close to o200k on English; the margin
  // covers code, CJK and whitespace-heavy text where they diverge.
  { pattern: /^(?:gemini|gemma)/, margin: 0.1 },
  // Byte-level BPE vocabularies of 128k-152k (Llama 3 extends cl100k, Qwen, DeepSeek, GLM,
  // Mistral Tekken) tokenize somewhat less densely than o200k's 200k vocabulary.
  { pattern: /^(?:llama|codellama|qwen|qwq|deepseek|glm|chatglm)/, margin: 0.1 },
  {
    pattern: /^(?:mistral|mixtral|ministral|codestral|pixtral|magistral|devstral|voxtral)/,
    margin: 0.1,
  },
];

// Unknown vocabularies can be much smaller than o200k (older 32k SentencePiece models need
// 20-30% more tokens for the same text), so pad the most.
const UNKNOWN_MARGIN = 0.2;

const choiceCache = new Map<string, EncodingInfo>();

/**
 * The tokenizer to count `model` with. OpenAI models get their real encoding (`exact: true`);
 * everything else is estimated with o200k_base plus a per-family `safetyMargin`.
 * Provider prefixes and tags are ignored (`openai/gpt-4o`, `azure/gpt-4o`,
 * `openrouter/anthropic/claude-3.5-sonnet:beta`).
 */
export function encodingFor(model: string): EncodingInfo {
  const cached = choiceCache.get(model);
  if (cached) return cached;
  const name = normalizeModelName(model);
  let info: EncodingInfo;
  if (o200kModels.test(name)) info = { encoding: "o200k_base", exact: true, safetyMargin: 0 };
  else if (cl100kModels.test(name))
    info = { encoding: "cl100k_base", exact: true, safetyMargin: 0 };
  else {
    const family = estimatedFamilies.find((f) => f.pattern.test(name));
    info = { encoding: "o200k_base", exact: false, safetyMargin: family?.margin ?? UNKNOWN_MARGIN };
  }
  if (choiceCache.size >= 1024) choiceCache.clear();
  choiceCache.set(model, Object.freeze(info));
  return info;
}
