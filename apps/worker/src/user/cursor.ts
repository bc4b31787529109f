/**
 * @module user/cursor
 * The opaque cursors of the user's lists: a keyset (the sort key of the last
 * row served) as base64url JSON. A keyset cursor stays right while rows are
 * inserted before it (newer ones), unlike an offset. A cursor that does not
 * decode is a 400 `invalid_cursor`. A page is read with one row more than it
 * holds, to tell whether another follows (`keysetPage`).
 */

import { ApiError } from "../api/errors";

export function encodeCursor(key: readonly (string | number)[]): string {
  const bytes = new TextEncoder().encode(JSON.stringify(key));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function invalidCursor(): ApiError {
  return new ApiError(
    400,
    "invalid_cursor",
    "the cursor is not one this list returned: pass `nextCursor` from the previous page as it was, or leave it out for the first page",
  );
}

/** The key `encodeCursor` made, checked against `shape` (the type of each part). */
export function decodeCursor<T extends (string | number)[]>(
  cursor: string,
  shape: { [K in keyof T]: T[K] extends string ? "string" : "number" },
): T {
  let parsed: unknown;
  try {
    const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    parsed = JSON.parse(new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))));
  } catch {
    throw invalidCursor();
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== shape.length ||
    parsed.some((part, index) => typeof part !== shape[index])
  ) {
    throw invalidCursor();
  }
  return parsed as T;
}

/** Which page of a list: at most `limit` rows after `cursor` (the first page without one). */
export interface PageRequest {
  limit: number;
  cursor: string | undefined;
}

/**
 * One page of a keyset list: `rows` were read with one row more than `limit`, which tells whether a
 * next page exists; its cursor is the key (`keyOf`) of the last row served, null after the last page.
 */
export function keysetPage<Row>(
  rows: readonly Row[],
  limit: number,
  keyOf: (row: Row) => readonly (string | number)[],
): { page: Row[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    page,
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null,
  };
}
