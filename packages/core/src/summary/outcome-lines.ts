/**
 * @module summary/outcome-lines
 * How a summary writes the ledger's errors and runs (`summary/ledger-outcomes`), under `## Commands
 * & errors`, and how a later compaction reads them back:
 *
 *     ### Test and build runs (latest outcome)
 *     - `$ python -m pytest tests/test_a.py` → exit 1 (1 failed, 9 passed)
 *     ### Errors met (least recent first)
 *     - output: `KeyError: 'header_rows'` — from `$ python reproduce.py`, still failing
 *     - output: `** (RuntimeError) no :secret_key_base …` — from `$ mix test`, fixed by a later run
 *
 * An error line is tool output: it stands in a code span after `output:`, so it reads as quoted
 * data, never as a statement or a heading of the summary; a code span's fence is longer than any
 * backtick run inside it, so nothing in the line closes it early.
 */

import type { LedgerCommand, LedgerError } from "./ledger-types.js";
import { codeSpan } from "./summary-lines.js";
import { locateSection } from "./template.js";

export const RUNS_HEADING = "### Test and build runs (latest outcome)";
export const ERRORS_HEADING = "### Errors met (least recent first)";

const FIXED = "fixed by a later run";
const FAILING = "still failing";

export function errorLine(error: LedgerError): string {
  return `- output: ${codeSpan(error.signature)} — from ${codeSpan(error.step)}, ${error.state === "fixed" ? FIXED : FAILING}`;
}

export function runLine(command: LedgerCommand): string {
  return `- ${codeSpan(`$ ${command.step}`)} → ${command.outcome}`;
}

/** A code span at the start of `text`: its content and where it ends; undefined when there is none. */
function readSpan(text: string): { content: string; end: number } | undefined {
  const fence = /^`+/.exec(text)?.[0];
  if (fence === undefined) return undefined;
  const close = text.indexOf(fence, fence.length);
  if (close === -1) return undefined;
  let content = text.slice(fence.length, close);
  // codeSpan pads with a space when the content holds backticks.
  if (fence.length > 1 && content.startsWith(" ") && content.endsWith(" "))
    content = content.slice(1, -1);
  return { content, end: close + fence.length };
}

function parseError(line: string): LedgerError | undefined {
  if (!line.startsWith("- output: ")) return undefined;
  const rest = line.slice("- output: ".length);
  const signature = readSpan(rest);
  if (signature === undefined) return undefined;
  const after = rest.slice(signature.end);
  if (!after.startsWith(" — from ")) return undefined;
  const step = readSpan(after.slice(" — from ".length));
  if (step === undefined) return undefined;
  const state = after.slice(" — from ".length + step.end);
  if (state !== `, ${FIXED}` && state !== `, ${FAILING}`) return undefined;
  return {
    signature: signature.content,
    step: step.content,
    state: state === `, ${FIXED}` ? "fixed" : "failing",
  };
}

function parseRun(line: string): LedgerCommand | undefined {
  if (!line.startsWith("- ")) return undefined;
  const span = readSpan(line.slice(2));
  if (span === undefined || !span.content.startsWith("$ ")) return undefined;
  const outcome = line.slice(2 + span.end);
  if (!outcome.startsWith(" → ")) return undefined;
  const words = outcome.slice(3).trim();
  const step = span.content.slice(2);
  const failed = !/^ok\b/.test(words);
  return {
    step,
    kind: /test|spec|check|repro/i.test(step) ? "test" : "build",
    outcome: words,
    failed,
  };
}

/** The errors and runs an engine-written summary lists under `## Commands & errors`. */
export function outcomesInSummary(summary: string): {
  errors: LedgerError[];
  commands: LedgerCommand[];
} {
  const errors: LedgerError[] = [];
  const commands: LedgerCommand[] = [];
  const location = locateSection(summary, "Commands & errors");
  if (location === undefined) return { errors, commands };
  let under: "runs" | "errors" | undefined;
  for (const raw of summary.slice(location.bodyStart, location.end).split("\n")) {
    const line = raw.trim();
    if (line.startsWith("#")) {
      under = line === RUNS_HEADING ? "runs" : line === ERRORS_HEADING ? "errors" : undefined;
      continue;
    }
    if (under === "errors") {
      const error = parseError(line);
      if (error !== undefined) errors.push(error);
    } else if (under === "runs") {
      const run = parseRun(line);
      if (run !== undefined) commands.push(run);
    }
  }
  return { errors, commands };
}

/** Whether a line of `summary` names the error (its signature, and that it was fixed when it was). */
function shown(lines: readonly string[], error: LedgerError): boolean {
  return lines.some(
    (line) =>
      line.includes(error.signature) && (error.state === "failing" || /\bfixed\b/i.test(line)),
  );
}

/**
 * `summary` with the ledger's errors and runs that no line of it shows added under `## Commands &
 * errors` (the section created before `## Exact identifiers`, or at the end): the guarantee does
 * not depend on a summarizer obeying.
 */
export function appendMissingOutcomes(
  summary: string,
  outcomes: { errors?: readonly LedgerError[]; commands?: readonly LedgerCommand[] },
): string {
  const lines = summary.split("\n");
  const runs = (outcomes.commands ?? []).filter(
    (command) =>
      !lines.some((line) => line.includes(`$ ${command.step}`) && line.includes(command.outcome)),
  );
  const errors = (outcomes.errors ?? []).filter((error) => !shown(lines, error));
  if (runs.length === 0 && errors.length === 0) return summary;
  const blocks = [
    ...(runs.length > 0 ? [`${RUNS_HEADING}\n${runs.map(runLine).join("\n")}`] : []),
    ...(errors.length > 0 ? [`${ERRORS_HEADING}\n${errors.map(errorLine).join("\n")}`] : []),
  ].join("\n\n");
  const section = locateSection(summary, "Commands & errors");
  if (section !== undefined) {
    const before = summary.slice(0, section.end).trimEnd();
    const after = summary.slice(section.end);
    return `${before}\n\n${blocks}\n${after === "" ? "" : `\n${after}`}`;
  }
  const identifiers = locateSection(summary, "Exact identifiers");
  const block = `## Commands & errors\n${blocks}\n`;
  if (identifiers === undefined) return `${summary.trimEnd()}\n\n${block}`;
  return `${summary.slice(0, identifiers.start)}${block}\n${summary.slice(identifiers.start)}`;
}
