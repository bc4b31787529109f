/**
 * @module formats/stable-json
 * JSON text with object keys sorted at every level, so equal values give equal
 * text whichever order an SDK wrote their keys in: what stands for an opaque
 * item (`formats/opaque`), and what a caller hashes or keys a cache by. Written
 * here because it is a dozen lines; a library would add a dependency for it.
 *
 * Self-contained on purpose (no imports): `@condense/client`, which has no
 * runtime dependency on core, carries a generated copy of this file.
 */

export interface StableJsonOptions {
  /** Keys left out of the outermost object (volatile fields such as ids or cache markers). */
  omit?: ReadonlySet<string>;
  /** Leave out keys holding `null` too, at every level (SDKs differ in writing them). */
  dropNulls?: boolean;
}

/**
 * `value` as JSON with object keys sorted at every level. Keys holding `undefined` are left out
 * as `JSON.stringify` leaves them out; anything JSON cannot hold is written as `null`.
 */
export function stableJson(value: unknown, options: StableJsonOptions = {}): string {
  const dropNulls = options.dropNulls === true;
  const inner = dropNulls ? { dropNulls } : {};
  if (Array.isArray(value)) return `[${value.map((item) => stableJson(item, inner)).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>;
    const omit = options.omit;
    const keys = Object.keys(record)
      .filter((key) => {
        const field = record[key];
        return field !== undefined && !(dropNulls && field === null) && omit?.has(key) !== true;
      })
      .sort();
    const fields = keys.map((key) => `${JSON.stringify(key)}:${stableJson(record[key], inner)}`);
    return `{${fields.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
