/**
 * @module summary/ledger/token-edges
 * Where an identifier in a token of text starts and ends: Markdown emphasis,
 * sentence punctuation and brackets the token did not open are trimmed from its
 * ends (also from a URL's), and a token is split at code punctuation or at
 * `:`, `@` and `..` into the pieces `summary/ledger/identifiers` classifies.
 */

/** Drops trailing punctuation and closing brackets that the URL did not open. */
export function trimUrl(url: string): string {
  const opens = countBrackets(url);
  let end = url.length;
  while (end > 0) {
    const ch = url.charAt(end - 1);
    if (".,;:!?*\\".includes(ch)) {
      end--;
      continue;
    }
    const pair = CLOSERS[ch];
    if (pair !== undefined && opens[pair.close] > opens[pair.open]) {
      opens[pair.close]--;
      end--;
      continue;
    }
    break;
  }
  return url.slice(0, end);
}

export interface BracketCounts {
  "(": number;
  ")": number;
  "[": number;
  "]": number;
  "{": number;
  "}": number;
}

const CLOSERS: Record<
  string,
  { open: keyof BracketCounts; close: keyof BracketCounts } | undefined
> = {
  ")": { open: "(", close: ")" },
  "]": { open: "[", close: "]" },
  "}": { open: "{", close: "}" },
};

/** The bracket each character code stands for, if any. */
const BRACKETS: Partial<Record<number, keyof BracketCounts>> = {
  40: "(",
  41: ")",
  91: "[",
  93: "]",
  123: "{",
  125: "}",
};

export function countBrackets(text: string): BracketCounts {
  const counts: BracketCounts = { "(": 0, ")": 0, "[": 0, "]": 0, "{": 0, "}": 0 };
  for (let i = 0; i < text.length; i++) {
    const bracket = BRACKETS[text.charCodeAt(i)];
    if (bracket !== undefined) counts[bracket]++;
  }
  return counts;
}

interface Piece {
  text: string;
  /** The delimiter right after the piece ("" at the end). */
  next: string;
}

export function splitAt(text: string, delimiters: string): Piece[] {
  const pieces: Piece[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Every delimiter is ASCII punctuation: letters, digits and other text skip the lookup.
    if (
      code > 0x7e ||
      (code >= 0x30 && code <= 0x39) ||
      ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a)
    )
      continue;
    const ch = text.charAt(i);
    if (delimiters.includes(ch)) {
      if (i > start) pieces.push({ text: text.slice(start, i), next: ch });
      start = i + 1;
    }
  }
  if (start < text.length) pieces.push({ text: text.slice(start), next: "" });
  return pieces;
}

/** Splits at `:`, `@` and `..` (git ranges such as `abc1234..def5678`). */
export function splitAtSeparators(text: string): string[] {
  if (!text.includes(":") && !text.includes("@") && !text.includes(".."))
    return text === "" ? [] : [text];
  const out: string[] = [];
  for (const piece of splitAt(text, ":@")) {
    for (const part of piece.text.split("..")) if (part.length > 0) out.push(part);
  }
  return out;
}

const LEADING_NOISE = "([{*,;:!?-";
export const TRAILING_NOISE = ".,;:!?*…";

/** Strips Markdown emphasis, sentence punctuation and unbalanced brackets from the ends of a token. */
export function trimEdges(token: string): string {
  let start = 0;
  while (start < token.length && LEADING_NOISE.includes(token.charAt(start))) start++;
  const text = start === 0 ? token : token.slice(start);
  // Counted only when a closing bracket ends the text (most tokens end otherwise).
  let counts: BracketCounts | undefined;
  let end = text.length;
  while (end > 0) {
    const ch = text.charAt(end - 1);
    if (TRAILING_NOISE.includes(ch)) {
      end--;
      continue;
    }
    const pair = CLOSERS[ch];
    if (pair === undefined) break;
    counts ??= countBrackets(text);
    if (counts[pair.close] <= counts[pair.open]) break;
    counts[pair.close]--;
    end--;
  }
  return end === text.length ? text : text.slice(0, end);
}

export function trimTrailing(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text.charAt(end - 1))) end--;
  return text.slice(0, end);
}
