import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type PackedHashes, packHashes, unpackHashes } from "./packed-hashes";

const hexHash = fc.stringMatching(/^[0-9a-f]{64}$/);

describe("packed hashes", () => {
  it("unpack to the hashes packed, in order, none included", () => {
    fc.assert(
      fc.property(fc.array(hexHash, { maxLength: 50 }), (hashes) => {
        expect(unpackHashes(packHashes(hashes))).toEqual(hashes);
      }),
    );
  });

  it("refuse a string that is not hashes of one length joined by commas", () => {
    for (const bad of ["ab,", ",ab", "ab,,cd", "ab,cde", ","]) {
      expect(() => unpackHashes(bad as PackedHashes)).toThrow(/joined by commas/);
    }
  });
});
