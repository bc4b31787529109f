/**
 * @module summary/template
 * The structured summary template shared by every summarizer: its sections,
 * in order, and a check that a summary has them.
 */

/** The marker around a summary in the context; a later compaction finds the summary by it. */
export const SUMMARY_OPEN = "<compacted-context>";
export const SUMMARY_CLOSE = "</compacted-context>";

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
