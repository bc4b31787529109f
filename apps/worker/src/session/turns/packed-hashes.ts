/**
 * @module session/turns/packed-hashes
 * A history's message hashes as they cross the RPC to the session object
 * (`gatewayTurn`, `gatewayPreview`): one string, the hashes joined by commas.
 * A ~150k-token history has ~600 of them, and the RPC's structured clone of
 * one string costs a small fraction of that of 600 strings (about 20× less
 * to serialize and read back), on the Worker's side and on the object's.
 */

/** Hashes joined by commas (`packHashes`); read them back with `unpackHashes`. */
export type PackedHashes = string & { readonly packedHashes: unique symbol };

/** `hashes` packed for the RPC; each is a message's hex hash (`messages/history-hash`). */
export function packHashes(hashes: readonly string[]): PackedHashes {
  return hashes.join(",") as PackedHashes;
}

/**
 * The hashes `packed` holds, in order; throws on a string `packHashes` did not make (an empty hash,
 * or hashes of different lengths). Checked by shape, not character by character: a scan of the ~40 KB
 * string costs several times the split, and a hash that is not one only fails to match.
 */
export function unpackHashes(packed: PackedHashes): string[] {
  if (packed === "") return [];
  const hashes = packed.split(",");
  const length = hashes[0]?.length ?? 0;
  if (length === 0 || hashes.some((hash) => hash.length !== length)) {
    throw new TypeError(
      "packed hashes must be hashes of one length joined by commas: pack them with packHashes",
    );
  }
  return hashes;
}
