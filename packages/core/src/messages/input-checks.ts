/**
 * @module messages/input-checks
 * Building blocks for reading untrusted message input (OpenAI, Anthropic and
 * Responses parsers share them): a problem collector that becomes one
 * `InvalidMessagesError`, safe field access, readable type names, and the
 * documented repair of lone UTF-16 surrogates. How deep and how large a
 * message may be is `messages/limits`'.
 */

import { InvalidMessagesError, type MessageProblem } from "../errors/condense-error.js";

/** Adds a problem of one message; returns `undefined`, so a reader can `return report(...)`. */
export type Report = (path: string, kind: string, message: string) => undefined;

/** Collects every problem found in one input, then throws them together. */
export class ProblemCollector {
  readonly problems: MessageProblem[] = [];

  add(index: number, path: string, kind: string, message: string): void {
    this.problems.push({ index, path, kind, message });
  }

  /** Reports the problems of message `index` (-1: of the input as a whole). */
  at(index: number): Report {
    return (path, kind, message) => {
      this.add(index, path, kind, message);
      return undefined;
    };
  }

  get size(): number {
    return this.problems.length;
  }

  /** Throws `InvalidMessagesError` listing every problem, if there is any. */
  throwIfAny(): void {
    if (this.problems.length > 0) throw new InvalidMessagesError(this.problems);
  }
}

/** How a field that may be text or a list is named in problems: `content`, a system prompt's. */
export interface TextOrListField {
  path: string;
  /** What the field is called in a message: "`content`", "message `content`". */
  subject: string;
  /** What the list holds: "content blocks", "content parts", "text blocks". */
  items: string;
  /** The kind of problem when it is neither text nor a list. */
  kind: string;
  /** An empty list is a problem too, of this kind, with this fix. */
  empty?: { kind: string; fix: string };
}

/**
 * A field that is a string or a list (message content, a system prompt): the list, to read on;
 * `undefined` for a string, and for anything else, reported.
 */
export function textOrList(
  value: unknown,
  field: TextOrListField,
  report: Report,
): unknown[] | undefined {
  const { path, subject, empty } = field;
  if (typeof value === "string") return undefined;
  if (!Array.isArray(value)) {
    return report(
      path,
      field.kind,
      `${subject} must be a string or an array of ${field.items}, got ${typeName(value)}`,
    );
  }
  if (value.length === 0 && empty !== undefined) {
    return report(path, empty.kind, `${subject} must not be an empty array; ${empty.fix}`);
  }
  return value;
}

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Own property only, so keys inherited from a prototype never count as input. */
export function field(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** "a string", "null", "an array", ... for error messages. */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "undefined":
      return "nothing";
    case "object":
      return "an object";
    case "bigint":
      return "a bigint";
    case "function":
      return "a function";
    default:
      return "a symbol";
  }
}

/** A short quoted rendering of a value for error messages: `bot`, or its type name. */
export function quote(value: unknown): string {
  if (typeof value !== "string") return typeName(value);
  const short = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  return `\`${short}\``;
}

const anySurrogate = /[\uD800-\uDFFF]/;
/** `String.prototype.isWellFormed` (ES2024, newer than this package's ES2023 lib) where the runtime has it. */
const isWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean })
  .isWellFormed;
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Replaces lone UTF-16 surrogates with U+FFFD (documented repair): they cannot
 * be encoded as UTF-8, so providers reject them or tokenizers choke on them.
 */
export function toWellFormed(text: string): string {
  // Most text holds no lone surrogate: the runtime's own check (at once for text of one-byte
  // characters, which holds no surrogate at all), or one plain scan where it has none, instead of
  // the lookarounds at every position.
  if (isWellFormed === undefined ? !anySurrogate.test(text) : isWellFormed.call(text)) return text;
  return text.replace(loneSurrogate, "\uFFFD");
}

/**
 * A copy of a JSON-like value with every string (and object key) made well
 * formed. Values that JSON cannot hold (functions, symbols) are kept as they
 * are; the shape checks that follow reject them where they matter.
 */
export function wellFormedDeep(value: unknown): unknown {
  if (typeof value === "string") return toWellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormedDeep);
  if (isRecord(value)) {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const name = toWellFormed(key);
      const item = wellFormedDeep(value[key]);
      // defineProperty so a `__proto__` key stays data instead of changing the prototype; every other
      // key is assigned, which makes the same property, and keeps the copy a fast object for V8 (a
      // copy made of defineProperty calls is slower to build and to read, every turn of a history).
      if (name === "__proto__") {
        Object.defineProperty(copy, name, {
          value: item,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else {
        copy[name] = item;
      }
    }
    return copy;
  }
  return value;
}
