/**
 * @module summary/summary-lines
 * The line model the extractive summarizer plans with: an item (a line that
 * trimming can shorten, cut to a floor, or drop), a group of items under a
 * `###` heading, which item trimming takes first; and how text is written into
 * a line: on one line, quoted, or in a code span that nothing can close early.
 */

/**
 * One line (or block) of a section. Trimming replaces it by `short` once,
 * then by `floor` (a line that must stay, such as a file's path), and drops it
 * only when it has no floor.
 */
export interface Item {
  text: string;
  short?: string;
  floor?: string;
  cost?: number;
  /** Kept longer than its neighbours (failures no later run resolved). */
  keep?: boolean;
  /** The identifiers a place line names: once it is dropped they stay as a plain list. */
  ids?: string[];
}

/** A sub-list of a section, rendered as its lists' items in order under an optional `###` heading. */
export interface Group {
  heading?: string;
  lists: Item[][];
  /**
   * A list whose items the budget may drop, and how many it had: the group then ends with a line
   * saying how many more there are and where to find them.
   */
  overflow?: { list: Item[]; total: number; noun: string };
}

/** The line that stands for `count` items the budget left out: they are searchable in the conversation. */
export function overflowLine(count: number, noun: string): string {
  return `- ${count} more ${noun} left out for size: search the conversation (recall) for them.`;
}

/** What an empty required section says. */
export const NONE = "(none recorded)";
/** What a required section says that the token budget emptied. */
export const TRIMMED = "(trimmed to fit the token budget)";

/** Which item of a list goes first: the oldest, the newest, or the oldest not marked `keep`. */
export type Pick = "first" | "last" | "first-unkept";

export function items(texts: readonly string[]): Item[] {
  return texts.map((text) => ({ text }));
}

export function bullets(texts: readonly string[]): Item[] {
  return texts.map((text) => ({ text: `- ${text}` }));
}

/** Body lines of a previous summary's section, without placeholders and sub-headings. */
export function previousLines(previous: Map<string, string>, section: string): string[] {
  const body = previous.get(section);
  if (body === undefined) return [];
  return body
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "" && !/^#{1,6}\s/.test(line) && !isPlaceholder(line));
}

export function isPlaceholder(line: string): boolean {
  return /^[-*\s]*(?:none|\(none(?: recorded)?\)|n\/a|\(trimmed to fit the token budget\))\.?$/i.test(
    line.trim(),
  );
}

export function dedupe(lines: readonly string[]): string[] {
  return [...new Set(lines)];
}

export function oneLine(text: string, max: number): string {
  // Only a prefix is flattened when it suffices: texts can be megabytes, lines are short.
  const prefix = text.length > 4 * max + 64 ? text.slice(0, 4 * max + 64) : text;
  let flat = prefix.replace(/\s+/g, " ").trim();
  if (prefix !== text && flat.length < max) flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export function quote(text: string): string {
  return text
    .split("\n")
    .map((line) => (line.trim() === "" ? ">" : `> ${line}`))
    .join("\n");
}

/** `text` as a Markdown code span: a fence longer than any backtick run in it, so it cannot close early. */
export function codeSpan(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = longest > 0 ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}
