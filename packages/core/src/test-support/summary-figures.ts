/**
 * @module test-support/summary-figures
 * What a deterministic summary is made of, measured the same way by the
 * benchmark (`bench/summary.ts`) and by the tests: how much of it is bare
 * identifier lists, whether each modified file and each tool-call id it shows
 * stands on a line that says something about it, and whether every ledger
 * identifier survived. Not part of the published package.
 */

import { splitLatestUser } from "../compact/latest-user.js";
import { toolCallInput, toolCallName } from "../messages/content.js";
import type { ChatMessage, ToolCall } from "../messages/types.js";
import { extractIdentifiers, isToolCallId } from "../summary/identifiers.js";
import type { Ledger } from "../summary/ledger-types.js";
import { filesTouched, shellCommandOf } from "../summary/tool-calls.js";
import { countTokens } from "../tokens/count.js";

/** Words a line must say besides its identifiers to be more than a list of them. */
const MIN_WORDS = 3;
/** A word: two letters or more (numbers, single letters and punctuation are not). */
const WORD = /\p{L}{2,}/gu;
/** Characters of a call's command or first argument that a line must show to name its target. */
const TARGET_PREFIX = 20;

/** The words of `line` once its identifiers are taken out. */
export function wordsBesideIdentifiers(line: string): number {
  const ids = extractIdentifiers(line).sort((a, b) => b.length - a.length);
  let rest = line;
  for (const id of ids) rest = rest.split(id).join(" ");
  return rest.match(WORD)?.length ?? 0;
}

/** A line that names identifiers and says fewer than three words besides them. */
export function isBareIdentifierLine(line: string): boolean {
  return extractIdentifiers(line).length > 0 && wordsBesideIdentifiers(line) < MIN_WORDS;
}

/** The summary's lines with the list of files only read set aside (`### Read…` under `## Files`). */
function linesOutsideReadList(summary: string): string[] {
  const kept: string[] = [];
  let section = "";
  let subsection = "";
  for (const line of summary.split("\n")) {
    const heading = /^(#{2,4})\s+(.*)$/.exec(line);
    if (heading) {
      if ((heading[1] ?? "").length === 2) {
        section = heading[2] ?? "";
        subsection = "";
      } else subsection = heading[2] ?? "";
    }
    if (section === "Files" && /^read/i.test(subsection)) continue;
    kept.push(line);
  }
  return kept;
}

/**
 * What names a tool call's target, any of: the file it touches, the first
 * characters of its command's first line, or of its first string argument.
 */
function callTargets(call: ToolCall): string[] {
  const targets: string[] = [];
  const path = filesTouched(call)[0]?.path;
  if (path !== undefined) targets.push(path);
  const command = shellCommandOf(call);
  let text = command === undefined ? undefined : command.trim().split("\n")[0];
  if (text === undefined) {
    try {
      const args: unknown = JSON.parse(toolCallInput(call));
      if (typeof args === "object" && args !== null)
        text = Object.values(args).find((value): value is string => typeof value === "string");
    } catch {
      text = undefined;
    }
  }
  const flat = text?.replace(/\s+/g, " ").trim();
  if (flat) targets.push(flat.slice(0, TARGET_PREFIX));
  return targets;
}

/** A line names the call when it names its tool and its target, whitespace collapsed. */
function namesCall(line: string, call: ToolCall): boolean {
  const flat = line.replace(/\s+/g, " ");
  if (!flat.toLowerCase().includes(toolCallName(call).toLowerCase())) return false;
  const targets = callTargets(call);
  return targets.length === 0 || targets.some((target) => flat.includes(target));
}

export interface SummaryFigures {
  /** Tokens of the summary (the engine's verbatim latest-user section left out: it is the user's text). */
  summaryTokens: number;
  /** Tokens on bare identifier-list lines, the list of files only read set aside. */
  bareListTokens: number;
  /** `bareListTokens` over the summary's tokens with the read-only list set aside too. */
  bareListShare: number;
  modifiedFiles: number;
  /** Modified files with a line that names the file and says more than its path. */
  modifiedDescribed: number;
  /** Distinct tool-call ids of the input that the summary shows. */
  toolCallIdsShown: number;
  /** Of those, the ones on a line that names their tool and target. */
  toolCallIdsNamed: number;
  /** Ledger identifiers and files other than tool-call ids. */
  identifiers: number;
  /** Of those, the ones found verbatim in the resulting messages. */
  identifiersKept: number;
}

/**
 * The figures of `summary` (as `result.summary` gives it), written for the
 * conversation `input`, with the `ledger` and the `messages` a compaction returned.
 */
export function summaryFigures(
  summary: string,
  input: readonly ChatMessage[],
  ledger: Ledger,
  messages: readonly ChatMessage[],
  model: string,
): SummaryFigures {
  const own = splitLatestUser(summary).summary;
  const lines = own.split("\n");
  const counted = linesOutsideReadList(own);
  const lineTokens = (list: readonly string[]) =>
    list.reduce((sum, line) => sum + countTokens(`${line}\n`, model), 0);
  const bareListTokens = lineTokens(counted.filter(isBareIdentifierLine));
  const countedTokens = lineTokens(counted);

  const describes = (path: string) =>
    lines.some(
      (line) =>
        (extractIdentifiers(line).includes(path) || line.includes(path)) &&
        wordsBesideIdentifiers(line) >= MIN_WORDS,
    );
  const modified = [...new Set(ledger.files.modified)];

  const calls = new Map<string, ToolCall>();
  for (const message of input)
    for (const call of message.tool_calls ?? []) calls.set(call.id, call);
  const shown = [...calls.values()].filter((call) => isShownId(own, call.id));
  const named = shown.filter((call) =>
    lines.some((line) => isShownId(line, call.id) && namesCall(line, call)),
  );

  const text = JSON.stringify(messages.map((message) => [message.content, message.tool_calls]));
  const identifiers = [
    ...new Set([...ledger.identifiers, ...ledger.files.modified, ...ledger.files.read]),
  ].filter((id) => id.trim() !== "" && !isToolCallId(id));
  const kept = identifiers.filter((id) => text.includes(JSON.stringify(id).slice(1, -1)));

  return {
    summaryTokens: countTokens(own, model),
    bareListTokens,
    bareListShare: countedTokens === 0 ? 0 : bareListTokens / countedTokens,
    modifiedFiles: modified.length,
    modifiedDescribed: modified.filter(describes).length,
    toolCallIdsShown: shown.length,
    toolCallIdsNamed: named.length,
    identifiers: identifiers.length,
    identifiersKept: kept.length,
  };
}

/** `id` stands in `text` as a whole token (`call_1` is not shown by `call_12`). */
function isShownId(text: string, id: string): boolean {
  let at = text.indexOf(id);
  while (at !== -1) {
    const before = text.charAt(at - 1);
    const after = text.charAt(at + id.length);
    if (!/[\w-]/.test(before) && !/[\w-]/.test(after)) return true;
    at = text.indexOf(id, at + 1);
  }
  return false;
}

/** What the summary's pointer lines say was left out for size (`N more … left out for size: …`). */
export function leftOutForSize(summary: string): number {
  let total = 0;
  for (const match of summary.matchAll(/^- (\d+) more [^\n]* left out for size: /gm))
    total += Number(match[1]);
  return total;
}
