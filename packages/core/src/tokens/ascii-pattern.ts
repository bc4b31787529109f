/**
 * @module tokens/ascii-pattern
 * The pre-tokenizer patterns restricted to ASCII text. o200k_base's pattern names Unicode
 * properties (`\p{L}`, `\p{Lu}`, `\p{M}`…), and V8 spends ~4 ms building those classes the first
 * time the pattern runs (parsing it, then compiling it twice as it tiers up): most of the first
 * count of a short text in a fresh process. On ASCII text each property is a plain range (`\p{L}`
 * is `A-Za-z`, `\p{N}` is `0-9`, `\p{Lt}`, `\p{Lm}`, `\p{Lo}` and `\p{M}` hold no ASCII
 * character), so the same pattern with ranges in their place splits ASCII text identically and
 * compiles in ~0.3 ms. Written by hand because the substitution is specific to these patterns;
 * the tests compare both patterns' splits on random ASCII text.
 */

/** Each property the patterns use, as the ASCII characters it holds (a class body). */
const ASCII_RANGES: Readonly<Record<string, string>> = {
  L: "A-Za-z",
  Lu: "A-Z",
  Ll: "a-z",
  Lt: "",
  Lm: "",
  Lo: "",
  M: "",
  N: "0-9",
};

const PROPERTY = /\\p\{([A-Za-z]+)\}/y;

/**
 * `pattern` with every `\p{…}` replaced by its ASCII range: inside a class by the range, outside
 * by a class of it (`[]`, which matches nothing, for a property with no ASCII character). Throws
 * on a property it does not know, or on `\P{…}` and `\p` escapes it cannot rewrite.
 */
export function asciiPattern(pattern: string): string {
  if (/\\P|\\p(?!\{)/.test(pattern)) {
    throw new Error("asciiPattern: only \\p{…} escapes can be rewritten");
  }
  let out = "";
  let inClass = false;
  let last = 0;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "\\") {
      if (pattern[i + 1] === "p") {
        PROPERTY.lastIndex = i;
        const match = PROPERTY.exec(pattern);
        const range = match?.[1] === undefined ? undefined : ASCII_RANGES[match[1]];
        if (match === null || range === undefined) {
          throw new Error(`asciiPattern: no ASCII range known for ${pattern.slice(i, i + 8)}…`);
        }
        out += pattern.slice(last, i) + (inClass ? range : `[${range}]`);
        i += match[0].length - 1;
        last = i + 1;
      } else {
        i++; // an escaped character: never a class bracket
      }
    } else if (char === "[") {
      inClass = true;
    } else if (char === "]") {
      inClass = false;
    }
  }
  return out + pattern.slice(last);
}

/** True when every character of `text` is ASCII (the ASCII pattern then splits it as the full one). */
export function isAscii(text: string): boolean {
  return !NON_ASCII.test(text);
}

const NON_ASCII = /[\u0080-\uffff]/;
