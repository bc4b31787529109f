import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hashBytes, type TokenBytes } from "./rank-coding.js";
import { RankTable } from "./rank-table.js";

function tokenBytes(tokens: readonly Uint8Array[]): TokenBytes {
  const offsets = new Uint32Array(tokens.length + 1);
  tokens.forEach((token, rank) => {
    offsets[rank + 1] = (offsets[rank] as number) + token.length;
  });
  const bytes = new Uint8Array(offsets[tokens.length] as number);
  tokens.forEach((token, rank) => {
    bytes.set(token, offsets[rank]);
  });
  return {
    bytes,
    offsets,
    hashes: Int32Array.from(tokens, (t) => hashBytes(t, 0, t.length)),
    maxTokenLength: Math.max(0, ...tokens.map((t) => t.length)),
  };
}

const distinctTokens = fc.uniqueArray(fc.uint8Array({ minLength: 1, maxLength: 12 }), {
  minLength: 1,
  maxLength: 300,
  selector: (token) => token.join(","),
});

describe("RankTable", () => {
  it("finds every token at its rank, wherever it sits in a piece (property)", () => {
    fc.assert(
      fc.property(distinctTokens, fc.uint8Array({ maxLength: 5 }), (tokens, padding) => {
        const table = new RankTable(tokenBytes(tokens));
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
          expect(new RankTable(tokenBytes(tokens)).rankOf(probe, 0, probe.length)).toBe(-1);
        },
      ),
    );
  });

  it("answers -1 for empty ranges and ranges longer than any token", () => {
    const table = new RankTable(tokenBytes([Uint8Array.of(1), Uint8Array.of(1, 2)]));
    const piece = Uint8Array.of(1, 2, 3);
    expect(table.maxTokenLength).toBe(2);
    expect(table.rankOf(piece, 1, 1)).toBe(-1);
    expect(table.rankOf(piece, 0, 3)).toBe(-1);
    expect(table.rankOf(piece, 0, 2)).toBe(1);
  });
});
