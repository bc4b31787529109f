/**
 * @module scripts/ascii-source
 * Makes the bundle's code pure ASCII. Node (and workerd) decode a module's source from UTF-8,
 * and one character outside ASCII anywhere in a file (a `’` in a regex literal, a `…` in a
 * comment) sends all of it down the slow path and makes it a two-byte string: for the 1.5 MB
 * chunk holding the rank tables that was ~35 ms of CPU of ~110 at import (issue 29, measured).
 * esbuild escapes strings (`charset: "ascii"`, its default) but leaves regex literals and the
 * comments it keeps as they are, so this escapes what is left.
 */

/**
 * `code` with every UTF-16 unit above 0x7F written as `\uXXXX`. The escape means the same
 * character in a string, a template, a regex literal (a surrogate pair escaped in a `u` regex is
 * still one code point) and an identifier, and is inert in a comment; a `String.raw` template
 * would differ, and the bundle has none with such characters (the tests in `test/` check the
 * cases it has). Source-map columns after an escaped character on its line shift by 5 per
 * character, which touches only the few lines that have one.
 */
export function asciiSource(code: string): string {
  return code.replace(
    /[\u0080-\uffff]/g,
    (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
