/**
 * @module summary/template
 * The structured summary template shared by every summarizer: its sections,
 * in order, a check that a summary has them, and the marker around a summary
 * in the context (with the helpers that find it quoted inside other text).
 */

/**
 * The marker around a summary in the context. The marker alone proves
 * nothing (any text can carry it): a later compaction recognises the summary
 * by the anchor its compaction returned (see `compact/summary-anchor`), and
 * every other marker block is quoted content.
 */
export const SUMMARY_OPEN = "<compacted-context>";
export const SUMMARY_CLOSE = "</compacted-context>";

/** Any spelling of a marker tag a reader could take for one: case, spaces, the slash. */
const MARKER_TAG = /<\s{0,8}(\/?)\s{0,8}compacted-context\s{0,8}>/gi;

/**
 * Makes marker tags inside a summary's own text inert (`[compacted-context]`),
 * so the text can neither close its block early nor open a block of its own.
 */
export function neutralizeSummaryMarkers(text: string): string {
  return text.replace(MARKER_TAG, (_tag, slash: string) => `[${slash}compacted-context]`);
}

/** Whether `text` holds a marker tag in any spelling. */
export function hasSummaryMarker(text: string): boolean {
  MARKER_TAG.lastIndex = 0;
  const found = MARKER_TAG.test(text);
  MARKER_TAG.lastIndex = 0;
  return found;
}

/** One piece of a text: plain text, or a quoted marker block (`quoted`). */
export interface TextSegment {
  text: string;
  quoted: boolean;
}

/**
 * Splits `text` into plain text and the marker blocks quoted in it: a block
 * runs from an open tag to the next close tag, or to the end when unclosed; a
 * stray close tag is a block of its own. Tags are matched in any spelling.
 */
export function splitSummaryBlocks(text: string): TextSegment[] {
  const segments: TextSegment[] = [];
  let position = 0;
  let open: number | undefined;
  for (const match of text.matchAll(MARKER_TAG)) {
    const isClose = match[1] === "/";
    if (open === undefined) {
      if (match.index > position)
        segments.push({ text: text.slice(position, match.index), quoted: false });
      if (isClose) {
        segments.push({ text: match[0], quoted: true });
        position = match.index + match[0].length;
      } else {
        open = match.index;
      }
    } else if (isClose) {
      const end = match.index + match[0].length;
      segments.push({ text: text.slice(open, end), quoted: true });
      open = undefined;
      position = end;
    }
  }
  if (open !== undefined) segments.push({ text: text.slice(open), quoted: true });
  else if (position < text.length) segments.push({ text: text.slice(position), quoted: false });
  return segments;
}

/** `text` without the marker blocks quoted in it: what the deterministic tier reads of a message. */
export function withoutSummaryBlocks(text: string): string {
  if (!hasSummaryMarker(text)) return text;
  return splitSummaryBlocks(text)
    .filter((segment) => !segment.quoted)
    .map((segment) => segment.text)
    .join("");
}

export const SUMMARY_SECTIONS = [
  "Goal",
  "Constraints & preferences",
  "Progress",
  "Key decisions",
  "Resolved questions",
  "Pending user asks",
  "Files",
  "Commands & errors",
  "Exact identifiers",
  "Next steps",
  "Critical context",
] as const;

export type SummarySection = (typeof SUMMARY_SECTIONS)[number];

/**
 * The sub-heading under `## Exact identifiers` of the tool outputs a summary
 * names by tool-call id; the next compaction retires the whole list (see
 * `retireToolCallIds`).
 */
export const TOOL_OUTPUTS_HEADING = "### Tool outputs worth fetching back";

/** Sections a summary must have to be accepted; the others may be omitted when empty. */
export const REQUIRED_SECTIONS: readonly SummarySection[] = [
  "Goal",
  "Progress",
  "Files",
  "Exact identifiers",
  "Next steps",
];

const headingPattern = /^#{1,4}\s+(.+?)\s*$/gm;

function normalizeHeading(text: string): string {
  return text
    .toLowerCase()
    .replace(/\band\b/g, "&")
    .replace(/[^a-z&]+/g, " ")
    .trim();
}

/** The headings present in a Markdown summary, normalized for comparison. */
function headings(summary: string): Set<string> {
  const found = new Set<string>();
  for (const match of summary.matchAll(headingPattern)) {
    const text = match[1];
    if (text !== undefined) found.add(normalizeHeading(text));
  }
  return found;
}

/** Required sections a summary lacks (empty when it is complete). */
export function missingSections(summary: string): SummarySection[] {
  const present = headings(summary);
  return REQUIRED_SECTIONS.filter((section) => !present.has(normalizeHeading(section)));
}

/** Renders sections in template order as `## Heading` blocks; empty sections are skipped. */
export function renderSections(sections: Partial<Record<SummarySection, string>>): string {
  const blocks: string[] = [];
  for (const section of SUMMARY_SECTIONS) {
    const body = sections[section]?.trim();
    if (body) blocks.push(`## ${section}\n${body}`);
  }
  return blocks.join("\n\n");
}

/** Splits a Markdown summary into its `##` sections (unknown headings are kept under their own name). */
export function parseSections(summary: string): Map<string, string> {
  const sections = new Map<string, string>();
  const parts = summary.split(/^##\s+/m);
  for (const part of parts.slice(1)) {
    const newline = part.indexOf("\n");
    const title = (newline === -1 ? part : part.slice(0, newline)).trim();
    const body = newline === -1 ? "" : part.slice(newline + 1).trim();
    sections.set(title, body);
  }
  return sections;
}

/** Where one section sits in a Markdown summary (offsets into the summary string). */
export interface SectionLocation {
  /** Start of the heading line. */
  start: number;
  /** Start of the body (just after the heading line's newline, or the end of the text). */
  bodyStart: number;
  /** End of the section: the start of the next heading of the same or a higher level, or the end of the text. */
  end: number;
}

/** A heading line; `[^\n]*` keeps the scan linear on hostile model output. */
const headingLinePattern = /^(#{1,4})[ \t]+([^\n]*)$/gm;

/** Finds `section` by its normalized heading (any level 1-4, e.g. `### Exact Identifiers`); the first match wins. */
export function locateSection(
  summary: string,
  section: SummarySection,
): SectionLocation | undefined {
  const wanted = normalizeHeading(section);
  let found: { start: number; bodyStart: number; level: number } | undefined;
  for (const match of summary.matchAll(headingLinePattern)) {
    const level = match[1]?.length ?? 0;
    if (found !== undefined) {
      if (level <= found.level)
        return { start: found.start, bodyStart: found.bodyStart, end: match.index };
      continue;
    }
    if (normalizeHeading(match[2] ?? "") === wanted) {
      const lineEnd = match.index + match[0].length;
      found = { start: match.index, bodyStart: Math.min(lineEnd + 1, summary.length), level };
    }
  }
  return found === undefined
    ? undefined
    : { start: found.start, bodyStart: found.bodyStart, end: summary.length };
}
