import { describe, expect, it } from "vitest";
import { ApiError } from "../api/errors";
import { decodeCursor, encodeCursor, keysetPage } from "./cursor";

describe("keyset cursors", () => {
  it("decode to the key they encode", () => {
    const cursor = encodeCursor([1_700_000_000_000, "agent-run-42"]);
    expect(decodeCursor<[number, string]>(cursor, ["number", "string"])).toEqual([
      1_700_000_000_000,
      "agent-run-42",
    ]);
  });

  it("refuse a cursor of another shape as 400 invalid_cursor", () => {
    const cursor = encodeCursor(["not-a-number"]);
    expect(() => decodeCursor<[number]>(cursor, ["number"])).toThrow(
      expect.objectContaining({ status: 400, code: "invalid_cursor" }),
    );
    expect(() => decodeCursor<[number]>("%%%", ["number"])).toThrow(ApiError);
  });
});

describe("keysetPage", () => {
  const rows = [{ num: 9 }, { num: 7 }, { num: 4 }];

  it("serves `limit` rows and the key of the last one when a row more was read", () => {
    const { page, nextCursor } = keysetPage(rows, 2, (row) => [row.num]);
    expect(page).toEqual([{ num: 9 }, { num: 7 }]);
    expect(nextCursor).not.toBeNull();
    expect(decodeCursor<[number]>(nextCursor ?? "", ["number"])).toEqual([7]);
  });

  it("has no next page when no row more was read", () => {
    expect(keysetPage(rows, 3, (row) => [row.num])).toEqual({ page: rows, nextCursor: null });
    expect(keysetPage([], 3, (row: { num: number }) => [row.num])).toEqual({
      page: [],
      nextCursor: null,
    });
  });
});
