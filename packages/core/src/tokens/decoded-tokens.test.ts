import { describe, expect, it } from "vitest";
import { decodeRanks } from "./rank-coding.js";
import { encodeRanks } from "./rank-encoding.js";

const bytesOf = (...tokens: string[]): Uint8Array[] =>
  tokens.map((token) => new TextEncoder().encode(token));

describe("DecodedTokens", () => {
  it("knows every token's length and hash at once, and writes its bytes on first use", () => {
    const tokens = bytesOf("a", "b", "c", "ab", "abc", "cab");
    const decoded = decodeRanks(encodeRanks(tokens));
    expect(decoded.count).toBe(6);
    expect([...decoded.lengths]).toEqual([1, 1, 1, 2, 3, 3]);
    // Only the single bytes (stored as they are) are in place; nothing is written after them.
    const text = (): string => new TextDecoder().decode(decoded.bytes).replace(/\0+$/, "");
    expect(text()).toBe("abc");
    expect(new TextDecoder().decode(decoded.tokenBytes(5))).toBe("cab");
    // "cab" needed "ab" (its right part), written first; "abc" is still not written.
    expect(text()).toBe("abcabcab");
    expect(new TextDecoder().decode(decoded.tokenBytes(4))).toBe("abc");
    expect(decoded.position(4)).toBe(8);
    expect(decoded.position(5)).toBe(5);
    expect(text()).toBe("abcabcababc");
  });

  it("writes a token coded against the reference table from the reference's bytes", () => {
    const reference = decodeRanks(encodeRanks(bytesOf("x", "y", "xy", "yx", "xyx")));
    const tokens = bytesOf("y", "x", "xyx", "yy");
    const decoded = decodeRanks(
      encodeRanks(tokens, bytesOf("x", "y", "xy", "yx", "xyx")),
      reference,
    );
    expect(tokens.map((_, rank) => new TextDecoder().decode(decoded.tokenBytes(rank)))).toEqual([
      "y",
      "x",
      "xyx",
      "yy",
    ]);
  });
});
