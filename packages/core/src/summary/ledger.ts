/**
 * @module summary/ledger
 * What code remembers across compactions, independent of any model: the exact
 * identifiers of a range, the files it read and modified, the user's
 * requests verbatim, and the errors met and runs' outcomes (`summary/ledger-outcomes`);
 * how ledgers merge, and what earlier compactions carry forward. Also the check that a summary carries every identifier, and the
 * repair that appends the missing ones.
 *
 * Sources: identifiers come from user and assistant text and from tool-call
 * arguments; never from tool outputs (those are pruned and can be fetched back
 * by their call id), nor from a `<compacted-context>` block quoted in a
 * message (not the engine's). Tool-call ids are not in the ledger: a summary
 * names the ones worth fetching back (see `retireToolCallIds`). Files come from
 * tool-call arguments only (see `summary/tool-calls`).
 */

import { messageText, toolCallInput } from "../messages/content.js";
import type { ChatMessage, ToolCall } from "../messages/types.js";
import { extractIdentifiers, isToolCallId } from "./identifiers.js";
import { mergeOutcomeLists, mergeOutcomes } from "./ledger-outcomes.js";
import type { Ledger } from "./ledger-types.js";
import { outcomesInSummary } from "./outcome-lines.js";
import {
  locateSection,
  REQUIRED_SECTIONS,
  SUMMARY_OPEN,
  TOOL_OUTPUTS_HEADING,
  withoutSummaryBlocks,
} from "./template.js";
import { argumentText, type EditorState, filesTouched } from "./tool-calls.js";

/** A ledger with nothing in it. */
export function emptyLedger(): Ledger {
  return {
    identifiers: [],
    files: { read: [], modified: [] },
    userRequests: [],
    errors: [],
    commands: [],
  };
}

/**
 * `into` then `from`, each list without duplicates, in order (`summarySha256` is not merged); an
 * error or a run `from` holds too takes its state there (`from` is the newer).
 */
export function mergeLedgers(into: Ledger, from: Ledger): Ledger {
  const union = (a: string[], b: string[]) => [...new Set([...a, ...b])];
  return {
    identifiers: union(into.identifiers, from.identifiers),
    files: {
      read: union(into.files.read, from.files.read),
      modified: union(into.files.modified, from.files.modified),
    },
    userRequests: union(into.userRequests, from.userRequests),
    ...mergeOutcomeLists(into, from),
  };
}

/**
 * What earlier compactions hand the next summary's ledger, carried by code: the
 * caller's stored ledger (`stored`, when it has one) and the identifiers of the
 * previous summary's text (when there is one), tool-call ids left out (they
 * retire: see `retireToolCallIds`). Undefined when there is neither.
 */
export function carriedLedger(
  stored: Ledger | undefined,
  previousSummary: string | undefined,
): Ledger | undefined {
  const fromSummary: Ledger | undefined =
    previousSummary === undefined
      ? undefined
      : {
          ...emptyLedger(),
          identifiers: extractIdentifiers(previousSummary),
          ...outcomesInSummary(previousSummary),
        };
  const merged =
    stored === undefined ? fromSummary : mergeLedgers(stored, fromSummary ?? emptyLedger());
  return merged === undefined
    ? undefined
    : { ...merged, identifiers: merged.identifiers.filter((id) => !isToolCallId(id)) };
}

/** Characters kept of each user request. */
export const REQUEST_CHAR_LIMIT = 1500;
/** Characters of user requests a ledger keeps in total (the first request always, then the latest ones). */
export const REQUESTS_TOTAL_LIMIT = 6000;
/** Appended to a request cut at REQUEST_CHAR_LIMIT. */
export const TRUNCATION_MARK = " […truncated]";

/**
 * The ledger of `messages`, merged after `previous` (carried forward from an
 * earlier compaction): previous entries first, duplicates dropped, order kept.
 */
export function buildLedger(messages: readonly ChatMessage[], previous?: Ledger): Ledger {
  const identifiers = new Set(previous?.identifiers ?? []);
  const read = new Set(previous?.files.read ?? []);
  const modified = new Set(previous?.files.modified ?? []);
  const requests: string[] = [...(previous?.userRequests ?? [])];
  const editor: EditorState = {};

  walkSources(messages, {
    identifiers: (_source, found) => addAll(identifiers, found),
    request: (text) => requests.push(text),
    call: (call) => {
      for (const touch of filesTouched(call, editor)) {
        (touch.kind === "read" ? read : modified).add(touch.path);
      }
    },
  });

  return {
    identifiers: [...identifiers],
    files: { read: [...read], modified: [...modified] },
    userRequests: selectRequests(requests),
    ...mergeOutcomes(previous ?? {}, messages),
  };
}

/** Where an identifier of a range was first written: a user request, assistant text, or a call's arguments. */
export type IdentifierSource =
  | { kind: "user" | "assistant"; text: string }
  | { kind: "call"; call: ToolCall };

/** The first source of every identifier `buildLedger` takes from `messages`. */
export function identifierSources(messages: readonly ChatMessage[]): Map<string, IdentifierSource> {
  const sources = new Map<string, IdentifierSource>();
  walkSources(messages, {
    identifiers: (source, found) => {
      for (const id of found) if (!sources.has(id)) sources.set(id, source);
    },
  });
  return sources;
}

interface SourceVisitor {
  identifiers(source: IdentifierSource, found: readonly string[]): void;
  request?(text: string): void;
  call?(call: ToolCall): void;
}

/**
 * The texts a ledger reads, in order: user messages that are not tool
 * feedback, assistant text, tool-call arguments. Tool-call ids are not
 * identifiers of the ledger: each call adds a unique one, and its output stays
 * retrievable by it; the summary names the ones worth fetching back.
 */
function walkSources(messages: readonly ChatMessage[], visit: SourceVisitor): void {
  messages.forEach((message, index) => {
    // A marker block quoted in a message is not the engine's summary: nothing is taken from it.
    if (message.role === "user") {
      const text = withoutSummaryBlocks(messageText(message));
      const kind = classifyUserMessage(text, messages[index - 1]);
      if (kind !== "observation")
        visit.identifiers({ kind: "user", text }, identifiersFor(message, text));
      if (kind === "request" && text.trim() !== "") visit.request?.(text.trim());
      return;
    }
    if (message.role !== "assistant") return;
    const text = withoutSummaryBlocks(messageText(message));
    visit.identifiers({ kind: "assistant", text }, identifiersFor(message, text));
    for (const call of message.tool_calls ?? []) {
      visit.identifiers({ kind: "call", call }, argumentIdentifiers(call));
      visit.call?.(call);
    }
  });
}

/**
 * What `extractIdentifiers` found in a message's text or a call's arguments, by that object, with
 * the text it was found in: the engine builds a range's ledger and the deterministic summarizer
 * builds it again, so each text is read once. An entry counts only while the text is the same.
 */
const foundIdentifiers = new WeakMap<object, { text: string; identifiers: readonly string[] }>();

function identifiersFor(message: ChatMessage, text: string): readonly string[] {
  const known = foundIdentifiers.get(message);
  if (known !== undefined && known.text === text) return known.identifiers;
  const identifiers = extractIdentifiers(text);
  foundIdentifiers.set(message, { text, identifiers });
  return identifiers;
}

function argumentIdentifiers(call: ToolCall): readonly string[] {
  const known = foundIdentifiers.get(call);
  const text = toolCallInput(call);
  if (known !== undefined && known.text === text) return known.identifiers;
  const identifiers = extractIdentifiers(argumentText(call));
  foundIdentifiers.set(call, { text, identifiers });
  return identifiers;
}

function addAll(set: Set<string>, values: readonly string[]): void {
  for (const value of values) set.add(value);
}

/** Trims each request and keeps the first one plus as many of the latest as fit the total budget. */
function selectRequests(all: readonly string[]): string[] {
  const unique = [...new Set(all.map(trimUserRequest))];
  const [first, ...rest] = unique;
  if (first === undefined) return [];
  let used = first.length;
  const latest: string[] = [];
  for (let i = rest.length - 1; i >= 0; i--) {
    const request = rest[i] ?? "";
    if (used + request.length > REQUESTS_TOTAL_LIMIT) break;
    used += request.length;
    latest.unshift(request);
  }
  return [first, ...latest];
}

/** A user request cut to REQUEST_CHAR_LIMIT characters plus a mark; idempotent. */
export function trimUserRequest(text: string): string {
  if (text.length <= REQUEST_CHAR_LIMIT) return text;
  return `${text.slice(0, REQUEST_CHAR_LIMIT)}${TRUNCATION_MARK}`;
}

export type UserMessageKind = "request" | "summary" | "observation" | "injected";

/** Prefixes of user-role messages that a harness wrote, not the user (Claude Code, SWE-agent, Codex). */
const INJECTED_PREFIXES = [
  "<task-notification>",
  "<local-command-caveat>",
  "<local-command-stdout>",
  "<local-command-stderr>",
  "<system-reminder>",
  "<environment_context>",
  "<user_instructions>",
  "[Request interrupted by user",
  "Base directory for this skill:",
  "Caveat: The messages below were generated by the user while running local commands",
  "Here is a demonstration of how to correctly accomplish this task",
];

const SUMMARY_PREFIXES = [
  SUMMARY_OPEN,
  "This session is being continued from a previous conversation",
];

/** Tool feedback that harnesses send with the user role (mini-swe-agent, OpenHands, SWE-agent). */
const OBSERVATION_PATTERN =
  /^(?:<returncode>|<output>|OBSERVATION:|Observation:|EXECUTION RESULT|Tool call error|ERROR:|Error:|Parameter '|Please always provide EXACTLY ONE action|Your (?:last )?(?:command|output) )/;

/**
 * What a user-role message is: the user's own `request`, a compaction
 * `summary`, a tool `observation` (an error/feedback line right after a tool
 * call), or text a harness `injected` (notifications, skill bodies, demos).
 */
export function classifyUserMessage(
  text: string,
  previous: ChatMessage | undefined,
): UserMessageKind {
  const start = text.trimStart();
  if (SUMMARY_PREFIXES.some((prefix) => start.startsWith(prefix))) return "summary";
  if (REQUIRED_SECTIONS.every((section) => locateSection(start, section) !== undefined))
    return "summary";
  if (INJECTED_PREFIXES.some((prefix) => start.startsWith(prefix))) return "injected";
  const afterTool =
    previous?.role === "tool" ||
    (previous?.role === "assistant" && (previous.tool_calls?.length ?? 0) > 0);
  if (afterTool && OBSERVATION_PATTERN.test(start)) return "observation";
  return "request";
}

/**
 * The ledger's identifiers and files that do not appear verbatim (as
 * substrings) in `summary`, in ledger order; blank ones are ignored.
 */
export function missingIdentifiers(summary: string, ledger: Ledger): string[] {
  const all = new Set([...ledger.identifiers, ...ledger.files.modified, ...ledger.files.read]);
  const shown = verbatimIn(summary);
  const missing: string[] = [];
  for (const id of all) if (id.trim() !== "" && !shown(id)) missing.push(id);
  return missing;
}

/**
 * Whether an identifier appears verbatim (as a substring) in `text`. Most stand as a whole word,
 * found in a set at once; the others are searched for. Searching for each of thousands of
 * similar paths (`gen/f1.ts`, `gen/f2.ts`…) in a long text would take seconds.
 */
export function verbatimIn(text: string): (id: string) => boolean {
  const words = new Set(text.split(/[\s`"'<>,;()[\]{}]+/));
  return (id) => words.has(id) || text.includes(id);
}

const IDENTIFIER_LINE_WIDTH = 100;
const EMPTY_BODY = /^(?:none|\(none(?: recorded)?\)|n\/a|-)\.?$/i;

/**
 * Adds `missing` to the summary's `Exact identifiers` section (creating it at
 * the end when absent) so every one appears verbatim. They are written plain,
 * not in backticks (an identifier may itself contain a backtick), as `- `
 * list lines of comma-separated identifiers about 100 characters wide: the
 * guarantee is that every identifier appears, so nothing is capped, and
 * packing keeps thousands of them compact. A lone `None` body is replaced.
 */
export function appendMissingIdentifiers(summary: string, missing: readonly string[]): string {
  const ids = missing.filter((id) => id.trim() !== "");
  if (ids.length === 0) return summary;
  const lines = packIdentifiers(ids);
  const location = locateSection(summary, "Exact identifiers");
  if (location === undefined) {
    const head = summary.trimEnd();
    return `${head}${head === "" ? "" : "\n\n"}## Exact identifiers\n${lines}\n`;
  }
  const body = summary.slice(location.bodyStart, location.end).trim();
  const before = EMPTY_BODY.test(body)
    ? summary.slice(0, location.bodyStart)
    : `${summary.slice(0, location.end).trimEnd()}\n`;
  const after = summary.slice(location.end);
  const headingNeedsNewline = before.endsWith("\n") ? "" : "\n";
  return `${before}${headingNeedsNewline}${lines}\n${after === "" ? "" : `\n${after}`}`;
}

/**
 * The summary with tool-call ids removed from its Exact identifiers section:
 * the list of tool outputs worth fetching back (`TOOL_OUTPUTS_HEADING`) goes
 * whole, and any other tool-call id listed there goes too. Every tool call adds
 * a unique id, so carrying them from compaction to compaction would grow the
 * summary without bound; an id named in a summary stays in the context until
 * the next compaction, and a store keeps its output by id after that.
 */
export function retireToolCallIds(summary: string): string {
  const location = locateSection(summary, "Exact identifiers");
  if (location === undefined) return summary;
  const section = summary.slice(location.bodyStart, location.end);
  const outputs = section.indexOf(TOOL_OUTPUTS_HEADING);
  const kept = outputs === -1 ? section : `${section.slice(0, outputs).trimEnd()}\n\n`;
  const body = kept
    .split("\n")
    .map((line) => {
      const bullet = /^\s*-\s+/.exec(line);
      if (bullet === null) return line;
      const items = line
        .slice(bullet[0].length)
        .split(", ")
        .filter((item) => !isToolCallId(item.replace(/^`|`$/g, "").trim()));
      return items.length === 0 ? undefined : `${bullet[0]}${items.join(", ")}`;
    })
    .filter((line) => line !== undefined)
    .join("\n");
  return `${summary.slice(0, location.bodyStart)}${body}${summary.slice(location.end)}`;
}

/**
 * `- a, b, c` lines of about IDENTIFIER_LINE_WIDTH characters; a longer
 * identifier gets its own line. One with leading or trailing whitespace is
 * put in double quotes so trimming cannot cut it (it still appears verbatim).
 */
export function packIdentifiers(ids: readonly string[]): string {
  const lines: string[] = [];
  let line = "";
  for (const raw of ids) {
    const id = raw.trim() === raw ? raw : `"${raw}"`;
    if (line === "") line = id;
    else if (line.length + 2 + id.length <= IDENTIFIER_LINE_WIDTH) line += `, ${id}`;
    else {
      lines.push(`- ${line}`);
      line = id;
    }
  }
  if (line !== "") lines.push(`- ${line}`);
  return lines.join("\n");
}
