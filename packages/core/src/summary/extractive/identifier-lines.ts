/**
 * @module summary/extractive/identifier-lines
 * The extractive summary's Exact identifiers section, for the ledger's
 * identifiers that no other line shows: each beside where it was named (the
 * call, the words around it in a script, or the user's or the assistant's
 * sentence), the previous summary's lines first; and the tool outputs worth
 * fetching back by tool-call id: up to 8 recent large outputs that are still
 * current (not an edit's confirmation, not a read of a file changed later,
 * not repeated by a later call), each with its tool, target and size, the
 * others counted.
 */

import { toolCallName } from "../../messages/content.js";
import type { ChatMessage } from "../../messages/types.js";
import { countTokens } from "../../tokens/count.js";
import { isToolCallId } from "../ledger/identifiers.js";
import { type IdentifierSource, identifierSources } from "../ledger/ledger.js";
import {
  argumentText,
  filesTouched,
  isShellCall,
  parseArguments,
  shellCommandOf,
} from "../ledger/tool-calls.js";
import { codeSpan, type Item, oneLine, previousLines } from "../summary-lines.js";
import { TOOL_OUTPUTS_HEADING } from "../template.js";
import {
  type Analysis,
  type CallRecord,
  callKey,
  firstLine,
  outcomeHead,
} from "./range-reading.js";

/** Tool outputs the summary names by id at most; the others are counted. */
const MAX_TOOL_OUTPUTS = 8;

/** Outputs shorter than this (characters) are not worth fetching back: the summary says what they said. */
const MIN_OUTPUT_CHARS = 1200;

/**
 * The calls whose output is worth fetching back, newest first, at most
 * MAX_TOOL_OUTPUTS: large enough to say more than the summary does, current
 * (not a read of a file the range changed afterwards, not repeated by a later
 * call of the same tool on the same target), not an edit's confirmation, and
 * named by an id no other call of the range reuses.
 */
export function toolOutputs(analysis: Analysis, model: string): { items: Item[]; total: number } {
  const { calls } = analysis;
  const uses = new Map<string, number>();
  for (const call of calls) uses.set(call.call.id, (uses.get(call.call.id) ?? 0) + 1);
  const lastChanged = new Map<string, number>();
  calls.forEach((call, index) => {
    for (const touch of call.touches)
      if (touch.kind === "modified") lastChanged.set(touch.path, index);
  });
  const changedAfter = (path: string, index: number) => (lastChanged.get(path) ?? -1) > index;
  const chosen: CallRecord[] = [];
  const seen = new Set<string>();
  for (let index = calls.length - 1; index >= 0 && chosen.length < MAX_TOOL_OUTPUTS; index--) {
    const call = calls[index] as CallRecord;
    const key = callKey(call);
    const superseded = seen.has(key);
    seen.add(key);
    if (superseded || call.result === undefined || call.result.length < MIN_OUTPUT_CHARS) continue;
    if (uses.get(call.call.id) !== 1 || !isToolCallId(call.call.id)) continue;
    const edits = call.touches.some((touch) => touch.kind === "modified");
    if (!call.shell && (edits || call.outcome.status === "failed")) continue;
    if (call.touches.some((t) => t.kind === "read" && changedAfter(t.path, index))) continue;
    chosen.unshift(call);
  }
  const total = calls.filter((call) => call.result !== undefined).length;
  return { items: chosen.map((call) => ({ text: outputLine(call, model) })), total };
}

function outputLine(call: CallRecord, model: string): string {
  const result = call.result ?? "";
  // Outputs can be megabytes: past 200k characters their size is estimated.
  const tokens =
    result.length > 200_000 ? Math.round(result.length / 4) : countTokens(result, model);
  const size = tokens < 1000 ? `${tokens}` : `${(tokens / 1000).toFixed(1)}k`;
  const subject = callSubject(call);
  const ended = call.shell ? ` → ${outcomeHead(call)}` : "";
  return `- ${call.name}${subject === "" ? "" : ` ${codeSpan(subject)}`}${ended}: ${size} tokens of output, tool call ${codeSpan(call.call.id)}`;
}

/** What a call names: its command, else its file, else its first string argument. */
function callSubject(call: CallRecord): string {
  if (call.command !== undefined) return `$ ${oneLine(firstLine(call.command), 100)}`;
  if (call.target !== undefined) return call.target;
  const first = Object.values(parseArguments(call.call)).find(
    (value): value is string => typeof value === "string" && value.trim() !== "",
  );
  return first === undefined ? "" : oneLine(first, 100);
}

/** The previous summary's identifier lines (its tool outputs retired before it got here, or skipped). */
export function previousIdentifierLines(previous: Map<string, string>): string[] {
  const body = previous.get("Exact identifiers") ?? "";
  const end = body.indexOf(TOOL_OUTPUTS_HEADING);
  const lines = previousLines(new Map([["ids", end === -1 ? body : body.slice(0, end)]]), "ids");
  return lines;
}

/**
 * Lines that say where identifiers were named, for the ones no other line of
 * the summary shows: the previous summary's lines first, then one line per
 * place of this range (the call, or the user's or the assistant's words
 * around the first of them). Rendered only while they show a missing one.
 */
export function identifierPlaces(
  ids: readonly string[],
  messages: readonly ChatMessage[],
  previousIdLines: readonly string[],
): Item[] {
  const places: Item[] = [];
  for (const line of previousIdLines) {
    const named = ids.filter((id) => line.includes(id));
    if (named.length > 0) places.push({ text: line, ids: named });
  }
  const sources = identifierSources(messages);
  const groups = new Map<IdentifierSource, string[]>();
  for (const id of ids) {
    const source = sources.get(id);
    if (source === undefined) continue;
    const group = groups.get(source) ?? [];
    group.push(id);
    groups.set(source, group);
  }
  for (const [source, named] of groups) places.push({ text: placeLine(source, named), ids: named });
  return places;
}

const SNIPPET_SIDE = 50;

function placeLine(source: IdentifierSource, ids: readonly string[]): string {
  if (source.kind !== "call") {
    const head = `- named by the ${source.kind}: ${codeSpan(snippet(source.text, ids[0] ?? ""))}`;
    return withUnshown(head, ids);
  }
  const { call } = source;
  const command = isShellCall(call) ? shellCommandOf(call) : undefined;
  // A withheld secret's pointer names the call's own id: it stands beside the call's tool and
  // target, and the words around it say what was withheld.
  const pointer = ids.some(isToolCallId);
  let subject: string;
  if (command !== undefined) {
    const line = firstLine(command);
    const onFirstLine = ids.find((id) => line.includes(id) && !oneLine(line, 60).includes(id));
    subject = `$ ${onFirstLine === undefined ? oneLine(line, 60) : snippet(line, onFirstLine)}`;
  } else {
    const path = filesTouched(call)[0]?.path;
    const first = Object.values(parseArguments(call)).find(
      (value): value is string => typeof value === "string" && value.trim() !== "",
    );
    // A file's name is enough here: its full path stands under Files.
    const named = pointer ? path : path?.split("/").pop();
    subject = named ?? (first === undefined ? "" : oneLine(first, 60));
  }
  let head = `- named by ${toolCallName(call)}${subject === "" ? "" : ` ${codeSpan(subject)}`}`;
  // Named further down a command (a script's body, not its first line, whose identifiers are
  // listed): the words around it. A file's content is placed well enough by the file's name.
  const deeper =
    command !== undefined || pointer
      ? ids.find(
          (id) => !head.includes(id) && !(command !== undefined && firstLine(command).includes(id)),
        )
      : undefined;
  if (deeper !== undefined) {
    const near = snippet(argumentText(call), deeper);
    if (near.includes(deeper)) head += ` in ${codeSpan(near)}`;
  }
  return withUnshown(head, ids);
}

/** `head`, then the identifiers it does not show. */
function withUnshown(head: string, ids: readonly string[]): string {
  const unshown = ids.filter((id) => !head.includes(id));
  return unshown.length === 0 ? head : `${head}: ${unshown.join(", ")}`;
}

/** About SNIPPET_SIDE characters of `text` on each side of `id`, cut at spaces, on one line. */
function snippet(text: string, id: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const at = flat.indexOf(id);
  if (at === -1) return oneLine(flat, 2 * SNIPPET_SIDE);
  let start = Math.max(0, at - SNIPPET_SIDE);
  if (start > 0) {
    const space = flat.indexOf(" ", start);
    start = space === -1 || space >= at ? start : space + 1;
  }
  let end = Math.min(flat.length, at + id.length + SNIPPET_SIDE);
  if (end < flat.length) {
    const space = flat.lastIndexOf(" ", end);
    end = space <= at + id.length ? end : space;
  }
  return `${start > 0 ? "…" : ""}${flat.slice(start, end).trim()}${end < flat.length ? "…" : ""}`;
}
