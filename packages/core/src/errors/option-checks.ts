/**
 * @module errors/option-checks
 * Checks for the numeric and text options every public entry point takes:
 * each returns the value (or the fallback when it is `undefined`) and throws an
 * `InvalidOptionsError` naming the option otherwise. Lists of one number per
 * message are checked here too.
 */

import { InvalidOptionsError } from "./condense-error.js";

/** A whole number ≥ 0, or `fallback` when absent. */
export function nonNegativeInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new InvalidOptionsError(
      name,
      `expected a whole number ≥ 0, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** A finite number > 0, or `fallback` when absent. */
export function positiveNumber(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new InvalidOptionsError(name, `expected a number > 0, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** A string; absent and blank strings both come back as `undefined` (nothing to use). */
export function optionalString(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    throw new InvalidOptionsError(name, `expected a string, got ${typeof value}`);
  }
  return value.trim() === "" ? undefined : value;
}

/**
 * A store's number for each message it hands over (its token counts, its seqs): one whole number
 * ≥ 0 or null per message, Chat Completions input only (`format` "openai", where messages map one
 * to one). `each` says what each number is, for the error.
 */
export function perMessageNumbers(
  name: string,
  value: unknown,
  messages: number,
  format: string,
  each = "",
): ReadonlyArray<number | null> {
  if (
    format !== "openai" ||
    !Array.isArray(value) ||
    value.length !== messages ||
    value.some((item) => item !== null && (!Number.isSafeInteger(item) || item < 0))
  ) {
    throw new InvalidOptionsError(
      name,
      `expected one non-negative integer (or null) per message${each}, with format openai; leave \`${name}\` out otherwise`,
    );
  }
  return value as ReadonlyArray<number | null>;
}
