/**
 * @module auth/token-store
 * Where the signed-in key lives: this tab's `sessionStorage` only, so it is
 * gone when the tab closes and never shared with other tabs, cookies or disk
 * beyond the browser's session store. Signing out removes it.
 */

const KEY = "condense.inspector.token";

function storage(): Storage | undefined {
  try {
    return window.sessionStorage;
  } catch {
    // Storage disabled by the browser: the key lives in memory for this page only.
    return undefined;
  }
}

export function readToken(): string | null {
  const value = storage()?.getItem(KEY) ?? null;
  return value === null || value.trim() === "" ? null : value;
}

export function saveToken(token: string): void {
  storage()?.setItem(KEY, token);
}

export function clearToken(): void {
  storage()?.removeItem(KEY);
}
