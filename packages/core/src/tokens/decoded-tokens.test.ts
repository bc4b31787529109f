import { describe, expect, it } from "vitest";
import { decodeRanks, encodeRanks } from "./rank-coding.js";

const bytesOf = (...tokens: string[]): Uint8Array[] =>
  tokens.map((token) => new TextEncoder().encode(token));

describe("DecodedTokens", () => {
  it("knows every token's length and hash at once, and writes its bytes on first use", () => {
    const tokens = bytesOf("a", "b", "c", "ab", "abc", "cab");
    const decoded = decodeRanks(encodeRanks(tokens));
    expect(decoded.count).toBe(6);
    expect([...decoded.offsets]).toEqual([0, 1, 2, 3, 5, 8, 11]);
    // "abc" and "cab" are merges: nothing of theirs is in place before they are asked for.
    expect([...decoded.bytes.subarray(5, 11)]).toEqual([0, 0, 0, 0, 0, 0]);
    expect(new TextDecoder().decode(decoded.tokenBytes(5))).toBe("cab");
    // "cab" needed "ab" (its right part), which is now in place too; "abc" still is not.
    expect(new TextDecoder().decode(decoded.bytes.subarray(3, 5))).toBe("ab");
    expect([...decoded.bytes.subarray(5, 8)]).toEqual([0, 0, 0]);
    expect(new TextDecoder().decode(decoded.tokenBytes(4))).toBe("abc");
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
