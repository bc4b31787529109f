/**
 * @module summary/ledger-guarantee
 * What the engine checks of every summary, whichever summarizer wrote it: each of the ledger's
 * errors, runs and identifiers is in it, or, where adding them would take it over its size limit,
 * counted in a line pointing to recall (the ledger still carries them to the next compaction, and
 * the transcript holds them). The guarantee does not depend on a summarizer obeying: what is
 * missing is added by code, the errors and runs first (failing ones before fixed ones), then the
 * newest identifiers. A summary that already points to what it left out for size (the
 * deterministic summarizer's lines) is taken at its word for that list.
 */

import { countTokens } from "../tokens/count.js";
import { appendMissingIdentifiers, missingIdentifiers } from "./ledger.js";
import type { Ledger, LedgerCommand, LedgerError } from "./ledger-types.js";
import { appendMissingOutcomes } from "./outcome-lines.js";
import { overflowLine } from "./summary-lines.js";
import { locateSection } from "./template.js";

/** Whether `summary` already points to `noun` it left out for size. */
function points(summary: string, noun: RegExp): boolean {
  return new RegExp(`^- \\d+ more ${noun.source}[^\\n]* left out for size: `, "m").test(summary);
}

/** `summary` with `line` added at the end of its `## Exact identifiers` section (or of the text). */
function withPointer(summary: string, line: string): string {
  const section = locateSection(summary, "Exact identifiers");
  if (section === undefined) return `${summary.trimEnd()}\n\n## Exact identifiers\n${line}\n`;
  const before = summary.slice(0, section.end).trimEnd();
  const after = summary.slice(section.end);
  return `${before}\n${line}\n${after === "" ? "" : `\n${after}`}`;
}

/** The largest n in [0, max] for which `ok(n)` holds, `ok` holding for all n below one that holds. */
function largest(max: number, ok: (n: number) => boolean): number {
  let low = 0;
  let high = max;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (ok(middle)) low = middle;
    else high = middle - 1;
  }
  return low;
}

/**
 * `summary` completed with the ledger's errors, runs and identifiers it misses, within
 * `maxTokens` when it was within it (see the module).
 */
export function completeSummary(
  summary: string,
  ledger: Ledger,
  maxTokens: number,
  model: string,
): string {
  const fits = (text: string) => countTokens(text, model) <= maxTokens;
  const errors = points(summary, /errors/) ? [] : (ledger.errors ?? []);
  const commands = points(summary, /runs/) ? [] : (ledger.commands ?? []);
  const withOutcomes = appendMissingOutcomes(summary, { errors, commands });
  const identifiers = points(summary, /identifiers/)
    ? []
    : missingIdentifiers(withOutcomes, ledger);
  const complete =
    identifiers.length === 0 ? withOutcomes : appendMissingIdentifiers(withOutcomes, identifiers);
  if (fits(complete) || !fits(summary)) return complete;

  // Over the limit: the outcomes that fit (failing first, then the newest), then the newest
  // identifiers that fit; the rest counted in pointer lines.
  const ranked: Array<{ error?: LedgerError; command?: LedgerCommand }> = [
    ...errors.filter((e) => e.state === "failing").map((error) => ({ error })),
    ...commands.filter((c) => c.failed).map((command) => ({ command })),
    ...[...errors.filter((e) => e.state === "fixed")].reverse().map((error) => ({ error })),
    ...[...commands.filter((c) => !c.failed)].reverse().map((command) => ({ command })),
  ];
  const outcomesOf = (count: number) => {
    const chosen = ranked.slice(0, count);
    const text = appendMissingOutcomes(summary, {
      errors: errors.filter((error) => chosen.some((entry) => entry.error === error)),
      commands: commands.filter((command) => chosen.some((entry) => entry.command === command)),
    });
    const left = ranked.length - count;
    return left === 0 ? text : withPointer(text, overflowLine(left, "errors and runs"));
  };
  const keptOutcomes = largest(ranked.length, (count) => fits(outcomesOf(count)));
  const base = outcomesOf(keptOutcomes);
  const missing = missingIdentifiers(base, ledger).filter((id) => identifiers.includes(id));
  const identifiersOf = (count: number) => {
    const text =
      count === 0 ? base : appendMissingIdentifiers(base, missing.slice(missing.length - count));
    const left = missing.length - count;
    return left === 0 ? text : withPointer(text, overflowLine(left, "identifiers"));
  };
  return identifiersOf(largest(missing.length, (count) => fits(identifiersOf(count))));
}
