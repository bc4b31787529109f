/**
 * @module messages/limits
 * What one message may hold, and how it is counted, in one place: how deep the
 * JSON it carries may nest. Every stage that reads a message counts with these
 * functions, so that what one stage accepts no later stage refuses.
 */

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
