import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonEqual } from "./json-equal.js";
import { stableJson } from "./stable-json.js";

describe("stableJson", () => {
  it("sorts keys at every level and leaves undefined-valued keys out, as JSON does", () => {
    expect(stableJson({ b: [{ d: 1, c: null }], a: undefined, e: "x" })).toBe(
      '{"b":[{"c":null,"d":1}],"e":"x"}',
    );
    expect(stableJson([undefined, () => 1])).toBe("[null,null]");
    expect(stableJson(undefined)).toBe("null");
  });

  it("leaves out null fields at every level, and omitted keys of the outermost object only", () => {
    const value = { id: "x", a: null, b: { id: "kept", c: null } };
    expect(stableJson(value, { omit: new Set(["id"]), dropNulls: true })).toBe(
      '{"b":{"id":"kept"}}',
    );
  });

  it("gives equal JSON values equal text, and reads back as the value (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const text = stableJson(a);
        expect(jsonEqual(JSON.parse(text), a)).toBe(true);
        expect(text === stableJson(b)).toBe(jsonEqual(a, b));
      }),
    );
  });
});
