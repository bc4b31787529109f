/**
 * @module messages/input-checks
 * Building blocks for reading untrusted message input (OpenAI, Anthropic and
 * Responses parsers share them): a problem collector that becomes one
 * `InvalidMessagesError`, safe field access, readable type names, and the
 * documented repair of lone UTF-16 surrogates.
 */

import { InvalidMessagesError, type MessageProblem } from "../errors/condense-error.js";

/** Collects every problem found in one input, then throws them together. */
export class ProblemCollector {
  readonly problems: MessageProblem[] = [];

  add(index: number, path: string, kind: string, message: string): void {
    this.problems.push({ index, path, kind, message });
  }

  get size(): number {
    return this.problems.length;
  }

  /** Throws `InvalidMessagesError` listing every problem, if there is any. */
  throwIfAny(): void {
    if (this.problems.length > 0) throw new InvalidMessagesError(this.problems);
  }
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
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Replaces lone UTF-16 surrogates with U+FFFD (documented repair): they cannot
 * be encoded as UTF-8, so providers reject them or tokenizers choke on them.
 */
export function toWellFormed(text: string): string {
  // Most text holds no surrogate at all: one plain scan instead of the lookarounds at every position.
  if (!anySurrogate.test(text)) return text;
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
      // defineProperty so a `__proto__` key stays data instead of changing the prototype.
      Object.defineProperty(copy, toWellFormed(key), {
        value: wellFormedDeep(value[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  return value;
}

/**
 * How deep tool-call arguments may nest (objects and arrays). Providers' own
 * parsers stop far earlier (serde_json at 128), and the engine walks arguments
 * recursively, so anything deeper is rejected as input rather than risking a
 * stack overflow.
 */
export const MAX_NESTING = 256;

/** True when JSON `text` (already known to parse) nests objects/arrays deeper than `limit`. Linear, no parsing. */
export function jsonTextNestsTooDeep(text: string, limit: number = MAX_NESTING): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c)
        i++; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth++;
      if (depth > limit) return true;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return false;
}

interface NestingFrame {
  node: object;
  children: unknown[];
  next: number;
  /** Levels of objects/arrays from this node down, so far. */
  height: number;
}

/**
 * True when `value` nests objects/arrays deeper than `limit` (the value itself
 * is level 1) or contains a cycle. Iterative, so hostile input cannot overflow
 * the stack here; shared sub-objects are measured once.
 */
export function valueNestsTooDeep(value: unknown, limit: number = MAX_NESTING): boolean {
  if (typeof value !== "object" || value === null) return false;
  const heights = new Map<object, number>();
  const onPath = new Set<object>([value]);
  const childrenOf = (node: object): unknown[] =>
    Array.isArray(node) ? node : Object.values(node);
  const frames: NestingFrame[] = [{ node: value, children: childrenOf(value), next: 0, height: 1 }];
  for (let frame = frames.at(-1); frame !== undefined; frame = frames.at(-1)) {
    if (frames.length > limit) return true;
    if (frame.next < frame.children.length) {
      const child = frame.children[frame.next];
      frame.next++;
      if (typeof child !== "object" || child === null) continue;
      if (onPath.has(child)) return true; // a cycle nests without end
      const known = heights.get(child);
      if (known !== undefined) {
        if (frames.length + known > limit) return true;
        frame.height = Math.max(frame.height, known + 1);
        continue;
      }
      onPath.add(child);
      frames.push({ node: child, children: childrenOf(child), next: 0, height: 1 });
      continue;
    }
    frames.pop();
    onPath.delete(frame.node);
    heights.set(frame.node, frame.height);
    const parent = frames.at(-1);
    if (parent !== undefined) parent.height = Math.max(parent.height, frame.height + 1);
  }
  return false;
}

/** The problem text for input nested past {@link MAX_NESTING}. */
export function tooDeepMessage(what: string): string {
  return `${what} nests objects/arrays more than ${MAX_NESTING} levels deep (or refers to itself); flatten it: no provider accepts such input`;
}
