/**
 * @module messages/limits
 * What one message may hold, and how it is counted, in one place: how deep the
 * JSON it carries may nest, and how many bytes of text it may hold. Every stage that reads a message (each format's
 * parser, the canonical parse that compaction and the gateway read stored
 * messages back with, the conversions between formats) counts with these
 * functions, so that what one stage accepts no later stage refuses.
 *
 * Depth is counted per payload, from the payload itself (level 1), never from
 * the message around it: a payload is the same object in every format and at
 * every stage (an Anthropic block in a turn's `content` is the block kept in
 * `provider_data.anthropic.blocks`; a Responses item is the item kept in
 * `provider_data.responses.items`), while the wrappers around it differ.
 * - tool-call arguments (JSON text or object; an Anthropic `tool_use` input
 *   becomes them): {@link MAX_NESTING} levels;
 * - a block or item a provider defines (Anthropic content, system and thinking
 *   blocks, Responses input items) and any other provider-data value:
 *   {@link MAX_ITEM_NESTING}, one level more, so that a `tool_use` block whose
 *   input nests {@link MAX_NESTING} levels fits.
 * Before the copies and conversions that recurse, a whole message (or a
 * `provider_data`) is measured against the deepest its payloads can sit under
 * its wrappers ({@link nestsPastItems}); like every measure here it is
 * iterative, so hostile input cannot overflow the stack.
 */

/**
 * How deep tool-call arguments may nest (objects and arrays). Providers' own
 * parsers stop far earlier (serde_json at 128), and the engine walks arguments
 * recursively, so anything deeper is rejected as input rather than risking a
 * stack overflow.
 */
export const MAX_NESTING = 256;

/** How deep a provider's block or item may nest: its tool input or arguments may nest {@link MAX_NESTING}. */
export const MAX_ITEM_NESTING = MAX_NESTING + 1;

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

/** Objects and arrays the plain walk visits before it leaves a value to the measured walk. */
const PLAIN_WALK_NODES = 4096;
/** Deepest limit the plain walk (recursive) is used for: its stack stays this shallow. */
const PLAIN_WALK_MAX_LIMIT = 1024;

/**
 * The answer of {@link valueNestsTooDeep} for a small value, walked plainly: no bookkeeping of
 * paths or heights, which cost more than the walk itself for the small blocks of a message.
 * Undefined once it has visited {@link PLAIN_WALK_NODES} objects (a large value, or shared parts
 * walked again). A cycle nests past any limit, so it is found as a value too deep. Recursion stays
 * within `limit` levels.
 */
function plainWalk(value: object, limit: number): boolean | undefined {
  let budget = PLAIN_WALK_NODES;
  const tooDeep = (node: object, level: number): boolean | undefined => {
    if (level > limit) return true;
    if (--budget < 0) return undefined;
    const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child !== "object" || child === null) continue;
      const answer = tooDeep(child, level + 1);
      if (answer !== false) return answer;
    }
    return false;
  };
  return tooDeep(value, 1);
}

/**
 * True when `value` nests objects/arrays deeper than `limit` (the value itself
 * is level 1) or contains a cycle. A small value is walked plainly; any other
 * iteratively, so hostile input cannot overflow the stack here, with shared
 * sub-objects measured once.
 */
export function valueNestsTooDeep(value: unknown, limit: number = MAX_NESTING): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (limit <= PLAIN_WALK_MAX_LIMIT) {
    const answer = plainWalk(value, limit);
    if (answer !== undefined) return answer;
  }
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

/** True when a provider's block or item (or another provider-data value) nests past {@link MAX_ITEM_NESTING}. */
export function itemNestsTooDeep(item: unknown): boolean {
  return valueNestsTooDeep(item, MAX_ITEM_NESTING);
}

/**
 * True when `value`, which holds blocks or items `wrappers` levels down (an Anthropic message:
 * 2, message > content > block; a `provider_data`: 3, provider_data > anthropic > blocks > block),
 * nests deeper than any of them may. Measured before a copy recurses; the items themselves are then
 * measured one by one ({@link itemNestsTooDeep}), which says which one is too deep.
 */
export function nestsPastItems(value: unknown, wrappers: number): boolean {
  return valueNestsTooDeep(value, MAX_ITEM_NESTING + wrappers);
}

/** The problem text for input nested past `limit` ({@link MAX_NESTING} for arguments, {@link MAX_ITEM_NESTING} for an item). */
export function tooDeepMessage(what: string, limit: number = MAX_NESTING): string {
  return `${what} nests objects/arrays more than ${limit} levels deep (or refers to itself); flatten it: no provider accepts such input`;
}

/** Bytes of text one message may hold ({@link messageSize}). */
export const MAX_MESSAGE_CONTENT_BYTES = 4 * 1024 * 1024;
/** Allowance on top of the content for the role, ids, names and tool-call envelopes. */
export const MESSAGE_ENVELOPE_BYTES = 64 * 1024;

/** UTF-8 length of a string without encoding it. */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Bytes of text a message holds: every string in it, in UTF-8 (JSON syntax not counted). */
export function messageSize(value: unknown): number {
  if (typeof value === "string") return utf8Length(value);
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + messageSize(item), 0);
  if (typeof value === "object" && value !== null) {
    let sum = 0;
    for (const [key, item] of Object.entries(value)) sum += key.length + messageSize(item);
    return sum;
  }
  return 0;
}
