import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DecodedTokens } from "./decoded-tokens.js";
import { decodeRanks, hashBytes } from "./rank-coding.js";
import { encodeRanks } from "./rank-encoding.js";
import { RankTable } from "./rank-table.js";

/** The tokens as the encoder finds them: decoded from their compact form. */
const tokenTable = (tokens: readonly Uint8Array[]): DecodedTokens =>
  decodeRanks(encodeRanks(tokens));

const distinctTokens = fc.uniqueArray(fc.uint8Array({ minLength: 1, maxLength: 12 }), {
  minLength: 1,
  maxLength: 300,
  selector: (token) => token.join(","),
});

describe("RankTable", () => {
  it("finds every token at its rank, wherever it sits in a piece (property)", () => {
    fc.assert(
      fc.property(distinctTokens, fc.uint8Array({ maxLength: 5 }), (tokens, padding) => {
        const table = new RankTable(tokenTable(tokens));
        tokens.forEach((token, rank) => {
          const piece = Uint8Array.from([...padding, ...token, ...padding]);
          expect(table.rankOf(piece, padding.length, padding.length + token.length)).toBe(rank);
        });
      }),
    );
  });

  it("answers -1 for bytes that are no token (property)", () => {
    fc.assert(
      fc.property(
        distinctTokens,
        fc.uint8Array({ minLength: 1, maxLength: 14 }),
        (tokens, probe) => {
          const known = new Set(tokens.map((token) => token.join(",")));
          fc.pre(!known.has(probe.join(",")));
          expect(new RankTable(tokenTable(tokens)).rankOf(probe, 0, probe.length)).toBe(-1);
        },
      ),
    );
  });

  it("tells apart tokens whose hashes are equal by their bytes", () => {
    // Six-byte strings from a fixed seed until two share a hash (birthday bound: ~100k tries).
    let seed = 1;
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) | 0;
      return (seed >>> 16) & 0xff;
    };
    const seen = new Map<number, Uint8Array>();
    let pair: [Uint8Array, Uint8Array] | undefined;
    while (pair === undefined) {
      const candidate = Uint8Array.from({ length: 6 }, next);
      const hash = hashBytes(candidate, 0, 6);
      const other = seen.get(hash);
      if (other !== undefined && other.join() !== candidate.join()) pair = [other, candidate];
      seen.set(hash, candidate);
    }
    const [first, second] = pair;
    expect(hashBytes(first, 0, 6)).toBe(hashBytes(second, 0, 6));
    const table = new RankTable(tokenTable([Uint8Array.of(first[0] as number), first]));
    expect(table.rankOf(first, 0, 6)).toBe(1);
    expect(table.rankOf(second, 0, 6)).toBe(-1);
    const both = new RankTable(tokenTable([first, second]));
    expect(both.rankOf(second, 0, 6)).toBe(1);
    expect(both.rankOf(first, 0, 6)).toBe(0);
  });

  it("answers -1 for empty ranges and ranges longer than any token", () => {
    const table = new RankTable(tokenTable([Uint8Array.of(1), Uint8Array.of(1, 2)]));
    const piece = Uint8Array.of(1, 2, 3);
    expect(table.maxTokenLength).toBe(2);
    expect(table.rankOf(piece, 1, 1)).toBe(-1);
    expect(table.rankOf(piece, 0, 3)).toBe(-1);
    expect(table.rankOf(piece, 0, 2)).toBe(1);
  });
});
