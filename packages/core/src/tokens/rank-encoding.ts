/**
 * @module tokens/rank-encoding
 * Writes a rank table in the compact form of `tokens/rank-coding`, at build
 * time (`scripts/build-rank-data.ts`): each token of two or more bytes as the
 * pair of lower-ranked tokens it merges, its parts chosen so that they code
 * short, or by its rank in a reference table, or as literal bytes.
 */

import { bitLength, NumberWriter } from "./coded-numbers.js";
import {
  BYTE_CLASS,
  type EncodedRanks,
  KIND_CYCLE,
  KIND_LITERAL,
  KIND_MERGE,
  KIND_REFERENCE,
  PART_LISTS,
} from "./rank-coding.js";

/**
 * The compact form of `tokens` (index = rank). With `reference`, a token it also holds is coded
 * by its rank there. Throws if a token repeats or is empty (rank tables have neither).
 */
export function encodeRanks(
  tokens: readonly Uint8Array[],
  reference?: readonly Uint8Array[],
): EncodedRanks {
  const latin1 = (bytes: Uint8Array): string => {
    let out = "";
    for (const byte of bytes) out += String.fromCharCode(byte);
    return out;
  };
  const keys = tokens.map(latin1);
  const rankOf = new Map<string, number>();
  let byteLength = 0;
  let maxTokenLength = 0;
  keys.forEach((key, rank) => {
    if (key.length === 0) throw new Error(`token ${rank} is empty`);
    if (rankOf.has(key)) throw new Error(`token ${rank} repeats token ${rankOf.get(key)}`);
    rankOf.set(key, rank);
    byteLength += key.length;
    maxTokenLength = Math.max(maxTokenLength, key.length);
  });
  const referenceRankOf = new Map<string, number>();
  reference?.forEach((token, rank) => {
    referenceRankOf.set(latin1(token), rank);
  });

  const kinds: number[] = [];
  const references = new NumberWriter();
  const literals = new NumberWriter();
  // Every split of a merged token into two lower-ranked tokens: any one rebuilds its bytes.
  const splits: Array<Array<readonly [number, number]>> = [];
  keys.forEach((key, rank) => {
    const referenceRank = referenceRankOf.get(key);
    if (referenceRank !== undefined) {
      kinds.push(KIND_REFERENCE);
      references.write(referenceRank);
      return;
    }
    const candidates: Array<readonly [number, number]> = [];
    for (let cut = 1; cut < key.length; cut++) {
      const a = rankOf.get(key.slice(0, cut));
      const b = rankOf.get(key.slice(cut));
      if (a !== undefined && b !== undefined && a < rank && b < rank) candidates.push([a, b]);
    }
    if (candidates.length === 0) {
      kinds.push(KIND_LITERAL);
      literals.write(key.length);
      for (const byte of tokens[rank] as Uint8Array) literals.write(byte);
      return;
    }
    kinds.push(KIND_MERGE);
    splits[rank] = candidates;
  });

  const listOf = (a: number): number => {
    const token = tokens[a] as Uint8Array;
    return 1 + (BYTE_CLASS[token[token.length - 1] as number] as number);
  };
  const chosen = chooseSplits(splits, listOf);
  const lists = partLists(chosen, listOf);

  const parts = new NumberWriter(true);
  let end = 0;
  for (const list of lists) {
    end += list.order.length;
    parts.write(end);
  }
  for (const list of lists) for (const rank of list.order) parts.write(rank);
  const left = new NumberWriter();
  const right = new NumberWriter();
  chosen.forEach((split) => {
    const [a, b] = split;
    left.write((lists[0] as PartList).position.get(a) ?? -1);
    right.write((lists[listOf(a)] as PartList).position.get(b) ?? -1);
  });

  return {
    count: tokens.length,
    byteLength,
    maxTokenLength,
    kinds: kindRuns(kinds),
    parts: parts.finish(),
    left: left.finish(),
    right: right.finish(),
    references: references.finish(),
    literals: literals.finish(),
  };
}

/** Kinds by runs (see {@link EncodedRanks.kinds}): the three kinds' runs in turn, 0 for one absent. */
function kindRuns(kinds: readonly number[]): EncodedRanks["kinds"] {
  const runs = new NumberWriter();
  let turn = 0;
  for (let start = 0; start < kinds.length; ) {
    const kind = kinds[start] as number;
    for (; turn % KIND_CYCLE !== kind; turn++) runs.write(0);
    let end = start + 1;
    while (end < kinds.length && kinds[end] === kind) end++;
    runs.write(end - start);
    turn++;
    start = end;
  }
  return runs.finish();
}

/** A part list: parts by use count, most used first, ties by rank (see {@link EncodedRanks.parts}). */
interface PartList {
  readonly order: readonly number[];
  readonly position: ReadonlyMap<number, number>;
}

function partLists(
  splits: ReadonlyArray<readonly [number, number]>,
  listOf: (left: number) => number,
): PartList[] {
  const uses = Array.from({ length: PART_LISTS }, () => new Map<number, number>());
  const count = (list: number, part: number): void => {
    const map = uses[list] as Map<number, number>;
    map.set(part, (map.get(part) ?? 0) + 1);
  };
  splits.forEach(([a, b]) => {
    count(0, a);
    count(listOf(a), b);
  });
  return uses.map((map) => {
    const order = [...map.keys()].sort(
      (x, y) => (map.get(y) as number) - (map.get(x) as number) || x - y,
    );
    // Among equally used parts ranks ascend: their differences, as stored, are mostly small rises.
    return { order, position: new Map(order.map((part, i) => [part, i])) };
  });
}

// Rounds of choosing each token's split by the lists the previous choice made: each round
// concentrates uses on fewer parts (shorter codes), and after three rounds little changes.
const SPLIT_ROUNDS = 3;
// Estimated cost in bits of adding a part to a list (its rank in the list, beyond its position).
const NEW_PART_BITS = 12;

/** One split per merged token (sparse, by rank), chosen so that parts code short. */
function chooseSplits(
  splits: ReadonlyArray<ReadonlyArray<readonly [number, number]>>,
  listOf: (left: number) => number,
): Array<readonly [number, number]> {
  // First guess: low ranks, which are the frequently used tokens.
  let chosen: Array<readonly [number, number]> = [];
  splits.forEach((candidates, rank) => {
    chosen[rank] = cheapest(candidates, (a, b) => bitLength(a) + bitLength(b));
  });
  for (let round = 0; round < SPLIT_ROUNDS; round++) {
    const lists = partLists(chosen, listOf);
    const cost = (list: PartList, part: number): number => {
      const position = list.position.get(part);
      return position === undefined
        ? NEW_PART_BITS + bitLength(list.order.length)
        : bitLength(position);
    };
    const next: Array<readonly [number, number]> = [];
    splits.forEach((candidates, rank) => {
      next[rank] = cheapest(
        candidates,
        (a, b) => cost(lists[0] as PartList, a) + cost(lists[listOf(a)] as PartList, b),
      );
    });
    chosen = next;
  }
  return chosen;
}

function cheapest(
  candidates: ReadonlyArray<readonly [number, number]>,
  cost: (a: number, b: number) => number,
): readonly [number, number] {
  let best = candidates[0] as readonly [number, number];
  let bestCost = Infinity;
  for (const candidate of candidates) {
    const c = cost(candidate[0], candidate[1]);
    if (c < bestCost) {
      bestCost = c;
      best = candidate;
    }
  }
  return best;
}
