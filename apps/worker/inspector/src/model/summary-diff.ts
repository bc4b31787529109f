/**
 * @module model/summary-diff
 * A summary read by section (`## Goal`, `## Progress`, …; deeper headings such
 * as `### Done` stay lines of their section), and what changed
 * from one summary to the next: per section, the lines a compaction added and
 * the lines it dropped (a line diff by `diff`'s `diffArrays`), so drift across
 * compactions shows where it happened.
 */

import { SUMMARY_CLOSE, SUMMARY_OPEN } from "@condense/core";
import { diffArrays } from "diff";

export interface SummarySection {
  /** The heading's text; "" for text before the first heading. */
  title: string;
  lines: string[];
}

export type SectionChange = "added" | "removed" | "changed" | "unchanged";

export interface SectionDiff {
  title: string;
  change: SectionChange;
  added: string[];
  dropped: string[];
  /** Lines both summaries have. */
  kept: string[];
}

/** A section heading (level 1 or 2); `[^\n]*` keeps the scan linear on model output. */
const HEADING = /^#{1,2}[ \t]+([^\n]*?)[ \t]*$/;

/** The summary's sections in order, each with its non-blank lines (the context marker removed). */
export function summarySections(summary: string): SummarySection[] {
  const sections: SummarySection[] = [];
  let current: SummarySection = { title: "", lines: [] };
  for (const raw of summary.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (line.trim() === SUMMARY_OPEN || line.trim() === SUMMARY_CLOSE) continue;
    const heading = HEADING.exec(line);
    if (heading !== null) {
      if (current.title !== "" || current.lines.length > 0) sections.push(current);
      current = { title: heading[1] ?? "", lines: [] };
    } else if (line.trim() !== "") {
      current.lines.push(line);
    }
  }
  if (current.title !== "" || current.lines.length > 0) sections.push(current);
  return sections;
}

function diffSection(
  title: string,
  before: string[] | undefined,
  after: string[] | undefined,
): SectionDiff {
  const diff: SectionDiff = { title, change: "unchanged", added: [], dropped: [], kept: [] };
  for (const change of diffArrays(before ?? [], after ?? [])) {
    if (change.added) diff.added.push(...change.value);
    else if (change.removed) diff.dropped.push(...change.value);
    else diff.kept.push(...change.value);
  }
  if (before === undefined) diff.change = "added";
  else if (after === undefined) diff.change = "removed";
  else if (diff.added.length > 0 || diff.dropped.length > 0) diff.change = "changed";
  return diff;
}

/** Section by section, in the newer summary's order; sections it no longer has come last. */
export function diffSummaries(before: string, after: string): SectionDiff[] {
  const older = new Map(summarySections(before).map((s) => [s.title, s.lines]));
  const newer = summarySections(after);
  const diffs = newer.map((section) =>
    diffSection(section.title, older.get(section.title), section.lines),
  );
  const present = new Set(newer.map((s) => s.title));
  for (const [title, lines] of older) {
    if (!present.has(title)) diffs.push(diffSection(title, lines, undefined));
  }
  return diffs;
}

/**
 * The compactions that wrote their summary, in order: those without one are left out, and so is a
 * compaction that hands back the summary before it unchanged (a tool strip keeps it), so that each
 * neighbouring pair is a summary and the one that replaced it. By text, not by `summarizer`:
 * records kept from before it was null for a tool strip name a summarizer.
 */
export function writtenSummaries<E extends { summary: string | null }>(
  events: readonly E[],
): Array<E & { summary: string }> {
  const written: Array<E & { summary: string }> = [];
  for (const event of events) {
    const { summary } = event;
    if (summary === null || summary.trim() === "") continue;
    if (summary === written.at(-1)?.summary) continue;
    written.push({ ...event, summary });
  }
  return written;
}
