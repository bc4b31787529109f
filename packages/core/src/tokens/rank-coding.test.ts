import fc from "fast-check";
import cl100kTiktoken from "js-tiktoken/ranks/cl100k_base";
import o200kTiktoken from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { decodeRunningSums, NumberWriter } from "./coded-numbers.js";
import type { DecodedTokens } from "./decoded-tokens.js";
import { concatHash, decodeRanks, type EncodedRanks, hashBytes } from "./rank-coding.js";
import * as cl100kData from "./rank-data/cl100k-base.js";
import * as o200kData from "./rank-data/o200k-base.js";
import { encodeRanks } from "./rank-encoding.js";

/** js-tiktoken's tokens by rank (its text form: `<name> <first rank> <base64 token>...`). */
function tiktokenTokens(data: { bpe_ranks: string }): Uint8Array[] {
  const tokens: Uint8Array[] = [];
  for (const line of data.bpe_ranks.split("\n")) {
    const fields = line.split(" ");
    const first = Number.parseInt(fields[1] ?? "", 10);
    fields.slice(2).forEach((token, i) => {
      if (token) tokens[first + i] = Uint8Array.from(atob(token), (c) => c.charCodeAt(0));
    });
  }
  return tokens;
}

/** A kinds stream of run lengths (merges, literals, references in turn), as the encoder writes it. */
function kindRuns(numbers: number[]): EncodedRanks["kinds"] {
  const writer = new NumberWriter();
  for (const n of numbers) writer.write(n);
  return writer.finish();
}

/** The decoded tokens, after checking that each carries the hash of its bytes. */
function tokenList(decoded: DecodedTokens): Uint8Array[] {
  const tokens: Uint8Array[] = [];
  for (let rank = 0; rank < decoded.count; rank++) {
    const token = decoded.tokenBytes(rank).slice();
    if (decoded.hashes[rank] !== hashBytes(token, 0, token.length)) {
      throw new Error(`token ${rank} was decoded with a wrong hash`);
    }
    tokens.push(token);
  }
  return tokens;
}

const sameBytes = (a: readonly Uint8Array[], b: readonly Uint8Array[]): boolean =>
  a.length === b.length &&
  a.every((token, i) => {
    const other = b[i];
    return (
      other !== undefined && other.length === token.length && token.every((x, j) => other[j] === x)
    );
  });

describe("the generated rank data", () => {
  it("decodes to exactly js-tiktoken's o200k_base and cl100k_base tokens, rank by rank", () => {
    const o200k = decodeRanks(o200kData.ranks());
    const cl100k = decodeRanks(cl100kData.ranks(), o200k);
    expect(sameBytes(tokenList(o200k), tiktokenTokens(o200kTiktoken))).toBe(true);
    expect(sameBytes(tokenList(cl100k), tiktokenTokens(cl100kTiktoken))).toBe(true);
    expect(o200kData.pattern).toBe(o200kTiktoken.pat_str);
    expect(cl100kData.pattern).toBe(cl100kTiktoken.pat_str);
  });

  it("is much smaller than js-tiktoken's text form (a fresh process scans every character)", () => {
    const size = (ranks: EncodedRanks): number =>
      Object.values(ranks).reduce<number>(
        (sum, field) =>
          sum + (typeof field === "number" ? 0 : field.symbols.length + field.bits.length),
        0,
      );
    // One character per token for its kind was 200k of o200k's 1.12M: kinds are coded by runs.
    expect(size(o200kData.ranks())).toBeLessThan(o200kTiktoken.bpe_ranks.length * 0.41);
    expect(size(cl100kData.ranks())).toBeLessThan(cl100kTiktoken.bpe_ranks.length * 0.4);
  });
});

/**
 * A BPE-like vocabulary: the 256 single bytes in a random order, then tokens made by
 * concatenating two earlier ones, and a few tokens with no split (coded as literals).
 */
const vocabulary = fc
  .record({
    byteOrder: fc.shuffledSubarray(
      Array.from({ length: 256 }, (_, i) => i),
      { minLength: 256 },
    ),
    steps: fc.array(
      fc.oneof(
        { weight: 9, arbitrary: fc.tuple(fc.nat(), fc.nat()) },
        { weight: 1, arbitrary: fc.uint8Array({ minLength: 2, maxLength: 6 }) },
      ),
      { maxLength: 400 },
    ),
  })
  .map(({ byteOrder, steps }) => {
    const tokens = byteOrder.map((byte) => Uint8Array.of(byte));
    const seen = new Set(tokens.map((t) => t.join(",")));
    for (const step of steps) {
      const token =
        step instanceof Uint8Array
          ? step
          : Uint8Array.from([
              ...(tokens[step[0] % tokens.length] ?? []),
              ...(tokens[step[1] % tokens.length] ?? []),
            ]);
      const key = token.join(",");
      if (!seen.has(key)) {
        seen.add(key);
        tokens.push(token);
      }
    }
    return tokens;
  });

describe("encodeRanks and decodeRanks", () => {
  it("round-trip any vocabulary (property)", () => {
    fc.assert(
      fc.property(vocabulary, (tokens) => {
        expect(sameBytes(tokenList(decodeRanks(encodeRanks(tokens))), tokens)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it("round-trip a vocabulary coded against a reference table (property)", () => {
    fc.assert(
      fc.property(vocabulary, vocabulary, fc.nat(), (reference, own, seed) => {
        // Shares some of the reference's tokens (in another order) and has tokens of its own.
        const shared = reference.filter((_, i) => (i * 7 + seed) % 3 === 0);
        const seen = new Set(shared.map((t) => t.join(",")));
        const tokens = [...shared, ...own.filter((t) => !seen.has(t.join(",")))].reverse();
        const decodedReference = decodeRanks(encodeRanks(reference));
        const encoded = encodeRanks(tokens, reference);
        expect(sameBytes(tokenList(decodeRanks(encoded, decodedReference)), tokens)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it("refuses tables with an empty or repeated token", () => {
    expect(() => encodeRanks([Uint8Array.of(1), new Uint8Array(0)])).toThrow(/token 1 is empty/);
    expect(() => encodeRanks([Uint8Array.of(1), Uint8Array.of(1)])).toThrow(
      /token 1 repeats token 0/,
    );
  });

  it("refuses corrupt data instead of returning wrong tokens", () => {
    const tokens = [
      Uint8Array.of(97),
      Uint8Array.of(98),
      Uint8Array.of(97, 98),
      Uint8Array.of(98, 98),
    ];
    const encoded = encodeRanks(tokens);
    expect(sameBytes(tokenList(decodeRanks(encoded)), tokens)).toBe(true);
    // Runs of merges, literals and references in turn: 0 merges, 2 literals, 0, then 1 merge of 4.
    expect(() => decodeRanks({ ...encoded, kinds: kindRuns([0, 2, 0, 1]) })).toThrow(
      /kinds do not match count/,
    );
    expect(() => decodeRanks({ ...encoded, kinds: kindRuns([0, 2, 0, 9]) })).toThrow(
      /kinds do not match count/,
    );
    expect(() => decodeRanks({ ...encoded, byteLength: encoded.byteLength + 1 })).toThrow(
      /corrupt/,
    );
    expect(() => decodeRanks({ ...encoded, maxTokenLength: 1 })).toThrow(/longer than the longest/);
    expect(() => decodeRanks({ ...encoded, parts: { symbols: "~", bits: "" } })).toThrow(/corrupt/);
    expect(() => decodeRanks({ ...encoded, left: { symbols: "", bits: "" } })).toThrow(/corrupt/);
    const badSymbol = { ...encoded.right, symbols: `\u00e9${encoded.right.symbols.slice(1)}` };
    expect(() => decodeRanks({ ...encoded, right: badSymbol })).toThrow(/a bad symbol/);
    expect(() => decodeRanks({ ...encoded, kinds: kindRuns([0, 0, 4]) })).toThrow(
      /reference table/,
    );
  });

  it("stores the part lists as running sums: the lists' ends, then each list's parts", () => {
    const tokens = [[97], [98], [97, 98], [98, 98]].map((t) => Uint8Array.from(t));
    const encoded = encodeRanks(tokens);
    // "ab" = a ‖ b, "bb" = b ‖ b: left parts [a, b]; right parts after a letter (list 2) [b].
    expect([...decodeRunningSums(encoded.parts).values]).toEqual([2, 2, 3, 3, 3, 3, 3, 0, 1, 1]);
    const parts = (values: readonly number[]): EncodedRanks["parts"] => {
      const writer = new NumberWriter(true);
      for (const value of values) writer.write(value);
      return writer.finish();
    };
    const decode = (values: readonly number[]) => () =>
      decodeRanks({ ...encoded, parts: parts(values) });
    expect(sameBytes(tokenList(decode([2, 2, 3, 3, 3, 3, 3, 0, 1, 1])()), tokens)).toBe(true);
    // A running rank below 0 or past the last token, wherever it is in the lists.
    expect(decode([2, 2, 3, 3, 3, 3, 3, 0, -1, 1])).toThrow(/no token -1 to be a part/);
    expect(decode([2, 2, 3, 3, 3, 3, 3, -5, 1, 1])).toThrow(/no token -5 to be a part/);
    expect(decode([2, 2, 3, 3, 3, 3, 3, 0, 1, 4])).toThrow(/no token 4 to be a part/);
    // Ends that do not match the parts, or fall.
    expect(decode([2, 2, 3, 3, 3, 3, 3, 0, 1])).toThrow(/part lists end early/);
    expect(decode([2, 2, 3, 3, 3, 3])).toThrow(/part lists end early/);
    expect(decode([2, 2, 3, 3, 3, 3, 3, 0, 1, 1, 0])).toThrow(/part lists too long/);
    expect(decode([2, 1, 3, 3, 3, 3, 3, 0, 1, 1])).toThrow(/part list 2 ends before it starts/);
    expect(decode([-1, 2, 3, 3, 3, 3, 3, 0, 1, 1])).toThrow(/part list 1 ends before it starts/);
  });

  it("writes only printable ASCII without quotes or backslashes, so data modules embed it as is (property)", () => {
    fc.assert(
      fc.property(vocabulary, (tokens) => {
        const encoded = encodeRanks(tokens);
        for (const field of Object.values(encoded)) {
          const texts = typeof field === "number" ? [] : [field.symbols, field.bits];
          for (const text of texts) expect(text).toMatch(/^[ !#-[\]-~]*$/);
        }
      }),
      { numRuns: 50 },
    );
  });

  it("codes the kinds of tokens by runs, not one character per token", () => {
    // 4 literal bytes, then their 16 pairs: no merges, 4 literals, no references, 16 merges.
    const bytes = [97, 98, 99, 100];
    const pairs = bytes.flatMap((a) => bytes.map((b) => Uint8Array.of(a, b)));
    const tokens = [...bytes.map((b) => Uint8Array.of(b)), ...pairs];
    const encoded = encodeRanks(tokens);
    expect(sameBytes(tokenList(decodeRanks(encoded)), tokens)).toBe(true);
    expect(encoded.kinds.symbols.length).toBe(4);
  });

  it("gives the parts used most often the smallest positions", () => {
    // "bc" = b ‖ c, "aa" = a ‖ a, "ab" = a ‖ b: "a" is a left part twice, "b" once.
    const tokens = [[97], [98], [99], [98, 99], [97, 97], [97, 98]].map((t) => Uint8Array.from(t));
    const encoded = encodeRanks(tokens);
    expect(sameBytes(tokenList(decodeRanks(encoded)), tokens)).toBe(true);
    // Left positions 1, 0, 0 (the left list is [a, b]); the symbol of 0 is " ", of 1 "!".
    expect(encoded.left.symbols).toBe("!  ");
  });
});

describe("the byte hash", () => {
  it("of a concatenation follows from the parts' hashes (property)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (a, b) => {
        const joined = Uint8Array.from([...a, ...b]);
        expect(concatHash(hashBytes(a, 0, a.length), hashBytes(b, 0, b.length), b.length)).toBe(
          hashBytes(joined, 0, joined.length),
        );
      }),
    );
  });
});
