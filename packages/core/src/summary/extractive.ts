/**
 * @module summary/extractive
 * The extractive summarizer (tier 4): a structured summary written by code,
 * without a model. Deterministic (same request, same summary), never throws,
 * and always carries every ledger identifier and file verbatim.
 *
 * What goes where:
 * - Goal: the first user request verbatim (as kept by the ledger), plus the
 *   latest request when it differs and is not already a pending ask.
 * - Constraints & preferences: user sentences with must/never/don't/always/
 *   prefer/should/avoid/make sure/ensure/required.
 * - Progress: `### Done` (tool-call counts per tool, assistant sentences that
 *   report completed work, the final reply when the range ends a turn),
 *   `### In progress` (the last assistant message when the turn is still
 *   open, calls still waiting for a result), `### Blocked` (failures among the
 *   last 20 calls that no later call succeeded at: the same last step of a
 *   command without its `cd dir &&`, or the same tool on the same file).
 * - Key decisions: assistant sentences with decided/instead/because/will use/
 *   chose/rather than/switch to/root cause.
 * - Pending user asks: user requests after the assistant's last final reply.
 * - Files: `### Modified` and `### Read` (read-only) from the ledger.
 * - Commands & errors: shell commands with their outcome (exit code from
 *   `<returncode>`, `Exit code N`, `exit code N`; else failure signals such as
 *   `Traceback`, `FAILED`, `error:`; exit 1 of a lone `grep`/`find` means
 *   "nothing found"), the first useful error line (the exception line of a
 *   traceback), and failed non-shell calls. The last 25 commands and the last
 *   15 failures are listed (repeats collapsed as `(×n)`); the rest are counted.
 *   An error line is tool output, so it is quoted as data: `output:` and a
 *   code span, never as a statement or a heading of the summary.
 * - Exact identifiers: every ledger identifier not already listed under Files,
 *   plain and comma-packed (see `packIdentifiers`).
 * - Next steps: open todo items of the latest `TodoWrite`/`update_plan` call,
 *   else the intent sentences (next/let me/I'll/need to) of the last assistant
 *   message, else a pointer to the pending request.
 * - Critical context: the working directory (most frequent `cd` target) and
 *   the branch created with `git checkout -b`/`git switch -c`.
 *
 * A `<compacted-context>` block quoted inside a message (a tool output, a
 * fetched page, a message copying a summary) is not the engine's summary:
 * it is left out before anything is read, and the message around it is read
 * as usual.
 *
 * With a previous summary: its Goal, Constraints, Key decisions, Resolved
 * questions, Critical context and Exact identifiers lines are kept (new items
 * appended, duplicates dropped); its Files entries are merged into the lists;
 * its Progress items move into `### Done`, those that were in progress or
 * blocked marked `(earlier, was in progress)` / `(earlier, was blocked)`; its
 * Commands lines are kept before the new ones and its tool-call and command
 * counts are added to the new ones; its Pending user asks survive only while
 * the new range has no final assistant reply; its Next steps are used only
 * when the new range has no assistant text at all.
 *
 * Size: `maxTokens` is respected by dropping items, lowest priority first:
 * Critical context, Commands & errors (older successes, then failures),
 * Progress done items, Key decisions, Resolved questions, Constraints, blocked
 * items, Next steps, in-progress items, Pending user asks, and finally the
 * Goal's latest and first request (shortened before dropped). Files and Exact
 * identifiers are never trimmed, so a ledger larger than `maxTokens` yields a
 * summary over it. Operator `instructions`/`focus` steer LLM summarizers only.
 */

import { toolResultCalls } from "../messages/call-ids.js";
import { messageText } from "../messages/content.js";
import type { ChatMessage, ToolCall } from "../messages/types.js";
import { countTokens } from "../tokens/count.js";
import { type CallOutcome, outcomeOf } from "./call-outcome.js";
import { extractIdentifiers } from "./identifiers.js";
import {
  buildLedger,
  classifyUserMessage,
  packIdentifiers,
  TRUNCATION_MARK,
  trimUserRequest,
} from "./ledger.js";
import type { Ledger } from "./ledger-types.js";
import type { SummarizeRequest, Summarizer } from "./summarizer.js";
import {
  parseSections,
  REQUIRED_SECTIONS,
  renderSections,
  type SummarySection,
  withoutSummaryBlocks,
} from "./template.js";
import {
  type EditorState,
  filesTouched,
  isShellCall,
  parseArguments,
  shellCommandOf,
} from "./tool-calls.js";

/** No options yet; the parameter keeps the factory signature stable. */
export type ExtractiveSummarizerOptions = Record<string, never>;

/** The tier-4 summarizer: `{ kind: "extractive", name: "extractive" }`, no model calls. */
export function extractiveSummarizer(_options: ExtractiveSummarizerOptions = {}): Summarizer {
  return {
    name: "extractive",
    kind: "extractive",
    async summarize(request: SummarizeRequest) {
      return { summary: extractiveSummary(request), calls: 0, inputTokens: 0 };
    },
  };
}

const NONE = "(none recorded)";
const TRIMMED = "(trimmed to fit the token budget)";
const MAX_SENTENCE = 300;
const MAX_COMMAND = 160;
const MAX_LAST_MESSAGE = 400;

/** The extractive summary text for `request` (what `summarize` returns). */
export function extractiveSummary(request: SummarizeRequest): string {
  try {
    return fitToBudget(plan(request), request);
  } catch {
    // A bug here must not cost the conversation its memory: fall back to the essentials.
    return minimalSummary(request);
  }
}

// ---------------------------------------------------------------------------
// Reading the range

interface CallRecord {
  name: string;
  shell: boolean;
  command?: string;
  target?: string;
  outcome: CallOutcome;
}

interface Analysis {
  requests: { text: string; index: number }[];
  assistantTexts: string[];
  lastAssistantText: string | undefined;
  /** The last assistant text came without tool calls (the turn ended). */
  lastAssistantIsFinal: boolean;
  lastTurnEnd: number;
  calls: CallRecord[];
  todos: string[] | undefined;
}

function analyze(messages: readonly ChatMessage[]): Analysis {
  // Results by call id *and occurrence*: servers that number calls `call_0`… every turn reuse ids.
  const results = new Map<string, string>();
  for (const [index, result] of toolResultCalls(messages)) {
    const key = `${result.occurrence}:${result.toolCallId}`;
    const message = messages[index];
    if (message !== undefined && !results.has(key)) results.set(key, messageText(message));
  }
  const occurrences = new Map<string, number>();
  const analysis: Analysis = {
    requests: [],
    assistantTexts: [],
    lastAssistantText: undefined,
    lastAssistantIsFinal: false,
    lastTurnEnd: -1,
    calls: [],
    todos: undefined,
  };
  const editor: EditorState = {};
  messages.forEach((message, index) => {
    if (message.role === "user") {
      const text = messageText(message).trim();
      if (text !== "" && classifyUserMessage(text, messages[index - 1]) === "request") {
        analysis.requests.push({ text, index });
      }
      return;
    }
    if (message.role !== "assistant") return;
    const text = messageText(message).trim();
    const calls = message.tool_calls ?? [];
    if (text !== "") {
      analysis.assistantTexts.push(text);
      analysis.lastAssistantText = text;
      analysis.lastAssistantIsFinal = calls.length === 0;
      if (calls.length === 0) analysis.lastTurnEnd = index;
    }
    for (const call of calls) {
      const occurrence = (occurrences.get(call.id) ?? 0) + 1;
      occurrences.set(call.id, occurrence);
      analysis.calls.push(record(call, results.get(`${occurrence}:${call.id}`), editor));
      const todos = todoItems(call);
      if (todos !== undefined) analysis.todos = todos;
    }
  });
  return analysis;
}

function record(call: ToolCall, result: string | undefined, editor: EditorState): CallRecord {
  const shell = isShellCall(call);
  const command = shell ? shellCommandOf(call) : undefined;
  const target = filesTouched(call, editor)[0]?.path;
  return {
    name: call.function.name,
    shell,
    ...(command === undefined ? {} : { command }),
    ...(target === undefined ? {} : { target }),
    outcome: outcomeOf(result, command),
  };
}

/** Open items of a `TodoWrite` (`todos`) or `update_plan` (`plan`) call; undefined for other calls. */
function todoItems(call: ToolCall): string[] | undefined {
  const args = parseArguments(call);
  const list = Array.isArray(args.todos)
    ? args.todos
    : Array.isArray(args.plan)
      ? args.plan
      : undefined;
  if (list === undefined || !/todo|plan/i.test(call.function.name)) return undefined;
  const items: string[] = [];
  for (const entry of list) {
    if (typeof entry !== "object" || entry === null) continue;
    const item = entry as Record<string, unknown>;
    const text = item.content ?? item.step ?? item.title ?? item.text;
    const status = typeof item.status === "string" ? item.status : "pending";
    if (typeof text !== "string" || status === "completed" || status === "done") continue;
    items.push(`- [${status}] ${oneLine(text, MAX_SENTENCE)}`);
  }
  return items;
}

// ---------------------------------------------------------------------------
// Sentences

/** Prose sentences of a message: code fences, tables, tags and quotes dropped, list markers removed. */
function sentences(text: string): string[] {
  const out: string[] = [];
  const parts = text.split("```");
  for (let p = 0; p < parts.length; p += 2) {
    for (const rawLine of (parts[p] ?? "").split("\n")) {
      if (/^\s*(?:[|<>{}$#]|\/\/|\s{4})/.test(rawLine)) continue;
      const line = rawLine
        .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "")
        .replace(/\*\*/g, "")
        .trim();
      if (line === "") continue;
      for (const sentence of line.split(/(?<=[.!?])\s+(?=[A-Z`"'(*[])/)) {
        const trimmed = sentence.trim();
        if (trimmed.length >= 12) out.push(oneLine(trimmed, MAX_SENTENCE));
      }
    }
  }
  return out;
}

const CONSTRAINT =
  /\b(?:must|never|don'?t|do not|always|prefer(?:s|red)?|should(?:n'?t)?|avoid|make sure|ensure|required?|not allowed|forbidden|only use|instead of)\b/i;
const DECISION =
  /\b(?:decided|decide to|instead|because|will use|I'll use|we'll use|going to use|chose|choose to|opted|rather than|switch(?:ed|ing)? to|root cause|the (?:fix|approach|solution|problem|issue) (?:is|was))\b/i;
const DONE_VERBS =
  "fixed|implemented|added|created|updated|completed|finished|resolved|committed|pushed|merged|removed|renamed|refactored|wrote|modified|replaced|installed|verified";
/** Reports of finished work: a sentence opening with a past-tense verb, a perfect tense, passing tests. */
const DONE = new RegExp(
  `^(?:(?:I|We)(?:'ve| have)? )?(?:successfully )?(?:${DONE_VERBS})\\b` +
    `|\\b(?:has been|have been|is now|are now) (?:\\w+ )?(?:${DONE_VERBS}|working|passing)\\b` +
    "|\\b(?:I've|I have|we've|we have) (?:now |also |just |successfully )?\\w+(?:ed|en|t)\\b" +
    "|\\b(?:all|the) (?:\\d+ )?tests? (?:now )?pass(?:es|ed|ing)?\\b|\\bsuccessfully\\b" +
    "|\\b(?:is|are) (?:now )?(?:committed|pushed|complete|done|fixed)\\b",
  "i",
);
const SPECULATION = /^(?:Maybe|Perhaps|Possibly|Let me|Let's|I wonder|It seems|Wait|Hmm)\b/i;
const INTENT =
  /\b(?:next|then I|let me|let's|I'll|I will|we need to|need to|going to|remaining|TODO|still have to|will now)\b/i;
const FUTURE = /\b(?:will|let me|let's|I'll|going to|need to|should|next|now I|try)\b/i;

function matching(texts: readonly string[], pattern: RegExp, exclude?: RegExp): string[] {
  const found: string[] = [];
  for (const text of texts) {
    for (const sentence of sentences(text)) {
      // Questions and list headers (`Each response should include:`) are not statements.
      if (!pattern.test(sentence) || sentence.endsWith("?") || sentence.endsWith(":")) continue;
      if (exclude?.test(sentence)) continue;
      found.push(sentence);
    }
  }
  return [...new Set(found)];
}

/** A request the ledger cut: drop the mark and the sentence it cut in half. */
function withoutCutSentence(text: string): string {
  if (!text.endsWith(TRUNCATION_MARK)) return text;
  const body = text.slice(0, -TRUNCATION_MARK.length);
  const end = Math.max(body.lastIndexOf(". "), body.lastIndexOf("\n"));
  return end === -1 ? "" : body.slice(0, end + 1);
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function quote(text: string): string {
  return text
    .split("\n")
    .map((line) => (line.trim() === "" ? ">" : `> ${line}`))
    .join("\n");
}

// ---------------------------------------------------------------------------
// Planning the sections

/** One line (or block) of a section; `short` replaces it once before it is dropped. */
interface Item {
  text: string;
  short?: string;
  cost?: number;
  /** Kept longer than its neighbours (failed commands). */
  keep?: boolean;
}

/** A sub-list of a section, rendered as its lists' items in order under an optional `###` heading. */
interface Group {
  heading?: string;
  lists: Item[][];
}

/** Which item of a list goes first: the oldest, the newest, or the oldest not marked `keep`. */
type Pick = "first" | "last" | "first-unkept";

interface SectionPlan {
  sections: Map<SummarySection, Group[]>;
  /** Lists to trim, lowest priority first. The lists are the ones rendered, so trimming shows. */
  trimOrder: { items: Item[]; pick: Pick }[];
}

interface Plan extends SectionPlan {
  /** Sections that lost items to the budget. */
  trimmed: Set<SummarySection>;
}

function items(texts: readonly string[]): Item[] {
  return texts.map((text) => ({ text }));
}

function bullets(texts: readonly string[]): Item[] {
  return texts.map((text) => ({ text: `- ${text}` }));
}

/** Body lines of a previous summary's section, without placeholders and sub-headings. */
function previousLines(previous: Map<string, string>, section: string): string[] {
  const body = previous.get(section);
  if (body === undefined) return [];
  return body
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "" && !/^#{1,6}\s/.test(line) && !isPlaceholder(line));
}

function isPlaceholder(line: string): boolean {
  return /^[-*\s]*(?:none|\(none(?: recorded)?\)|n\/a|\(trimmed to fit the token budget\))\.?$/i.test(
    line.trim(),
  );
}

/**
 * A message's text without the marker blocks quoted in it (see the module notes); the message
 * itself when it quotes none, so that what was read of it once is not read again.
 */
function withoutQuotedSummaries(message: ChatMessage): ChatMessage {
  const content = message.content;
  if (content === null) return message;
  if (typeof content === "string") {
    const text = withoutSummaryBlocks(content);
    return text === content ? message : { ...message, content: text };
  }
  let changed = false;
  const parts = content.map((part) => {
    if (part.type !== "text") return part;
    const text = withoutSummaryBlocks(part.text);
    if (text === part.text) return part;
    changed = true;
    return { ...part, text };
  });
  return changed ? { ...message, content: parts } : message;
}

function plan(request: SummarizeRequest): SectionPlan {
  const messages = request.messages.map(withoutQuotedSummaries);
  const ledger: Ledger =
    request.identifierPolicy === "off" ? request.ledger : buildLedger(messages, request.ledger);
  const analysis = analyze(messages);
  const previous =
    request.previousSummary === undefined
      ? new Map<string, string>()
      : parseSections(request.previousSummary);
  const sections = new Map<SummarySection, Group[]>();

  // Pending user asks: requests after the last final reply.
  const pendingTexts = analysis.requests
    .filter((entry) => entry.index > analysis.lastTurnEnd)
    .map((entry) => trimUserRequest(entry.text));
  const keepPreviousPending = analysis.lastTurnEnd === -1;
  const requestTexts = [
    ...ledger.userRequests,
    ...analysis.requests.map((entry) => trimUserRequest(entry.text)),
  ];
  const first = requestTexts[0];
  const latest = requestTexts[requestTexts.length - 1];
  const pending: Item[] = [
    ...(keepPreviousPending ? items(previousLines(previous, "Pending user asks")) : []),
    ...pendingTexts.map((text) =>
      text === first
        ? { text: "- The request quoted under Goal is still open." }
        : { text: quote(text), short: quote(oneLine(text, 300)) },
    ),
  ];
  sections.set("Pending user asks", [{ lists: [pending] }]);

  // Goal.
  const previousGoal = previous.get("Goal")?.trim();
  const goal: Item[] = [];
  if (previousGoal !== undefined && previousGoal !== "" && !isPlaceholder(previousGoal)) {
    goal.push({ text: previousGoal, short: oneLine(previousGoal, 300) });
  } else if (first !== undefined) {
    goal.push({ text: quote(first), short: quote(oneLine(first, 300)) });
  }
  const goalText = goal[0]?.text ?? "";
  if (
    latest !== undefined &&
    latest !== first &&
    !pendingTexts.includes(latest) &&
    !goalText.includes(latest)
  ) {
    goal.push({
      text: `Latest request:\n${quote(latest)}`,
      short: `Latest request:\n${quote(oneLine(latest, 300))}`,
    });
  }
  sections.set("Goal", [{ lists: [goal] }]);

  // Constraints & preferences.
  const constraints = items(
    dedupe([
      ...previousLines(previous, "Constraints & preferences"),
      ...matching(
        [
          ...ledger.userRequests.map(withoutCutSentence),
          ...analysis.requests.map((entry) => entry.text),
        ],
        CONSTRAINT,
      ).map((sentence) => `- ${sentence}`),
    ]).slice(0, 24),
  );
  sections.set("Constraints & preferences", [{ lists: [constraints] }]);

  // Progress.
  const { done, doneDetails, inProgress, blocked } = progress(analysis, previous);
  sections.set("Progress", [
    { heading: "### Done", lists: [doneDetails, done] },
    { heading: "### In progress", lists: [inProgress] },
    { heading: "### Blocked", lists: [blocked] },
  ]);

  // Key decisions.
  const decisions = items(
    dedupe([
      ...previousLines(previous, "Key decisions"),
      ...matching(analysis.assistantTexts, DECISION, SPECULATION)
        .slice(-15)
        .map((sentence) => `- ${sentence}`),
    ]),
  );
  sections.set("Key decisions", [{ lists: [decisions] }]);
  const resolved = items(previousLines(previous, "Resolved questions"));
  sections.set("Resolved questions", [{ lists: [resolved] }]);

  // Files (never trimmed).
  const files = mergePreviousFiles(ledger, previous.get("Files"));
  const modifiedSet = new Set(files.modified);
  const readOnly = files.read.filter((path) => !modifiedSet.has(path));
  sections.set("Files", [
    { heading: "### Modified", lists: [bullets(files.modified)] },
    { heading: "### Read", lists: [bullets(readOnly)] },
  ]);

  // Commands & errors.
  const { previousCommands, recent, countLine } = commands(analysis, previous);
  sections.set("Commands & errors", [{ lists: [countLine, previousCommands, recent] }]);

  // Exact identifiers (never trimmed): previous lines verbatim, then what they lack.
  const previousIds = previousLines(previous, "Exact identifiers");
  const previousIdText = previousIds.join("\n");
  const listedFiles = new Set([...files.modified, ...readOnly]);
  const newIds = ledger.identifiers.filter(
    (id) => !listedFiles.has(id) && !previousIdText.includes(id),
  );
  const idLines = [
    ...previousIds,
    ...(newIds.length > 0 ? packIdentifiers(newIds).split("\n") : []),
  ];
  sections.set("Exact identifiers", [{ lists: [items(idLines)] }]);

  // Next steps.
  const next = nextSteps(analysis, pending.length > 0, previous);
  sections.set("Next steps", [{ lists: [next] }]);

  // Critical context.
  const context = items(
    dedupe([...previousLines(previous, "Critical context"), ...environment(analysis)]),
  );
  sections.set("Critical context", [{ lists: [context] }]);

  const trimOrder: SectionPlan["trimOrder"] = [
    { items: context, pick: "first" },
    { items: previousCommands, pick: "first" },
    { items: recent, pick: "first-unkept" },
    { items: countLine, pick: "first" },
    { items: done, pick: "first" },
    { items: doneDetails, pick: "last" },
    { items: decisions, pick: "first" },
    { items: resolved, pick: "first" },
    { items: constraints, pick: "last" },
    { items: blocked, pick: "first" },
    { items: next, pick: "last" },
    { items: inProgress, pick: "first" },
    { items: pending, pick: "first" },
    { items: goal, pick: "last" },
  ];
  return { sections, trimOrder };
}

function dedupe(lines: readonly string[]): string[] {
  return [...new Set(lines)];
}

function progress(
  analysis: Analysis,
  previous: Map<string, string>,
): { done: Item[]; doneDetails: Item[]; inProgress: Item[]; blocked: Item[] } {
  // Previous progress moves into Done, marked when it was not done.
  const done: Item[] = [];
  let mark = "";
  let previousTally: string | undefined;
  for (const line of (previous.get("Progress") ?? "").split("\n")) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line.trim());
    if (heading) {
      const name = (heading[1] ?? "").toLowerCase();
      mark = name.includes("progress")
        ? "(earlier, was in progress) "
        : name.includes("block")
          ? "(earlier, was blocked) "
          : "";
      continue;
    }
    if (line.trim() === "" || isPlaceholder(line)) continue;
    const text = line.trim().replace(/^[-*+]\s+/, "");
    // Our own tool-call tally is merged into the new one below.
    if (mark === "" && text.startsWith(TOOL_CALLS_PREFIX)) previousTally = text;
    else done.push({ text: `- ${mark}${text}` });
  }
  for (const sentence of matching(analysis.assistantTexts, DONE, FUTURE).slice(-12)) {
    done.push({ text: `- ${sentence}` });
  }

  const counts = new Map<string, { total: number; failed: number }>();
  for (const match of (previousTally ?? "").matchAll(
    /(?:^Tool calls: |, )(\S+) ×(\d+)(?: \((\d+) failed\))?/g,
  )) {
    counts.set(match[1] ?? "", { total: Number(match[2]), failed: Number(match[3] ?? 0) });
  }
  for (const call of analysis.calls) {
    const entry = counts.get(call.name) ?? { total: 0, failed: 0 };
    entry.total++;
    if (call.outcome.status === "failed") entry.failed++;
    counts.set(call.name, entry);
  }
  const stats = [...counts.entries()]
    .sort((a, b) => b[1].total - a[1].total || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(
      ([name, { total, failed }]) => `${name} ×${total}${failed > 0 ? ` (${failed} failed)` : ""}`,
    );
  const doneDetails: Item[] =
    stats.length > 0 ? [{ text: `- ${TOOL_CALLS_PREFIX}${stats.join(", ")}` }] : [];

  const inProgress: Item[] = [];
  if (analysis.lastAssistantText !== undefined) {
    const text = oneLine(analysis.lastAssistantText, MAX_LAST_MESSAGE);
    // A final reply (no tool calls) closes the turn: it reports, it is not in progress.
    if (analysis.lastAssistantIsFinal) done.push({ text: `- Final reply: ${text}` });
    else inProgress.push({ text: `- Last assistant message: ${text}` });
  }
  const waiting = analysis.calls.filter((call) => call.outcome.status === "pending");
  if (waiting.length > 0) {
    inProgress.push({
      text: `- Waiting for results of: ${waiting.map((call) => describeCall(call)).join("; ")}`,
    });
  }

  const blocked: Item[] = [];
  const recent = analysis.calls.slice(-20);
  const seen = new Set<string>();
  recent.forEach((call, i) => {
    if (call.outcome.status !== "failed") return;
    const key = resolutionKey(call);
    if (seen.has(key)) return;
    const resolved = recent
      .slice(i + 1)
      .some((later) => resolutionKey(later) === key && later.outcome.status === "ok");
    if (resolved) return;
    seen.add(key);
    blocked.push({ text: `- ${describeCall(call)} → ${outcomeText(call.outcome)}` });
  });
  return { done, doneDetails, inProgress, blocked: blocked.slice(-5) };
}

const TOOL_CALLS_PREFIX = "Tool calls: ";
const COUNT_LINE = /^- (\d+) shell command\(s\) run, (\d+) failed/;

function callKey(call: CallRecord): string {
  if (call.command !== undefined) return `$ ${firstLine(call.command)}`;
  return `${call.name} ${call.target ?? ""}`;
}

/**
 * What a later success must repeat to resolve a failure: for commands the last
 * step without `cd dir &&` (a script written by a here-doc and then run fails
 * or passes with its run), for other tools the tool and its file.
 */
function resolutionKey(call: CallRecord): string {
  if (call.command === undefined) return `${call.name} ${call.target ?? ""}`;
  const lines = call.command.trim().split("\n");
  const last = (lines[lines.length - 1] ?? "").trim().replace(/^(?:cd\s+\S+\s*(?:&&|;)\s*)+/, "");
  return `$ ${last.replace(/\s+/g, " ")}`;
}

function firstLine(command: string): string {
  return (command.trim().split("\n")[0] ?? "").replace(/\s+/g, " ");
}

function describeCall(call: CallRecord): string {
  if (call.command !== undefined) {
    const line = firstLine(call.command);
    const more = call.command.trim().includes("\n") || line.length > MAX_COMMAND;
    return `$ ${oneLine(line, MAX_COMMAND)}${more && line.length <= MAX_COMMAND ? " …" : ""}`;
  }
  return call.target === undefined ? call.name : `${call.name} ${call.target}`;
}

function outcomeText(outcome: CallOutcome): string {
  if (outcome.status === "pending") return "no result yet";
  const head =
    outcome.exitCode !== undefined
      ? outcome.exitCode === 0 && outcome.status === "ok"
        ? "ok"
        : `exit ${outcome.exitCode}`
      : outcome.status;
  const shownHead =
    outcome.status === "failed" && outcome.exitCode === 0 ? "failed (exit 0)" : head;
  return outcome.error === undefined
    ? shownHead
    : `${shownHead}, output: ${codeSpan(outcome.error)}`;
}

/** `text` as a Markdown code span: a fence longer than any backtick run in it, so it cannot close early. */
function codeSpan(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = longest > 0 ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

function commands(
  analysis: Analysis,
  previous: Map<string, string>,
): { previousCommands: Item[]; recent: Item[]; countLine: Item[] } {
  const previousCommands: Item[] = [];
  let earlierRun = 0;
  let earlierFailed = 0;
  for (const line of previousLines(previous, "Commands & errors")) {
    const count = COUNT_LINE.exec(line);
    if (count !== null) {
      earlierRun += Number(count[1]);
      earlierFailed += Number(count[2]);
    } else {
      previousCommands.push({ text: line });
    }
  }
  const relevant = analysis.calls.filter((call) => call.shell || call.outcome.status === "failed");
  // Collapse repeats of the same command in a row, keeping the last outcome.
  const collapsed: { call: CallRecord; times: number; position: number }[] = [];
  relevant.forEach((call, position) => {
    const last = collapsed[collapsed.length - 1];
    if (last !== undefined && callKey(last.call) === callKey(call)) {
      last.call = call;
      last.times++;
      last.position = position;
    } else {
      collapsed.push({ call, times: 1, position });
    }
  });
  const recentFailures = collapsed
    .filter((entry) => entry.call.outcome.status === "failed")
    .slice(-15);
  const recentAll = collapsed.slice(-25);
  const shown = new Set([...recentFailures, ...recentAll]);
  const ordered = collapsed.filter((entry) => shown.has(entry));
  const recent = ordered.map(
    (entry): Item => ({
      text: `- ${describeCall(entry.call)}${entry.times > 1 ? ` (×${entry.times})` : ""} → ${outcomeText(entry.call.outcome)}`,
      keep: entry.call.outcome.status === "failed",
    }),
  );
  const shellCalls = analysis.calls.filter((call) => call.shell);
  const run = earlierRun + shellCalls.length;
  const failedShell =
    earlierFailed + shellCalls.filter((call) => call.outcome.status === "failed").length;
  const partial = ordered.length < collapsed.length || earlierRun > 0;
  const countLine: Item[] =
    run > 0
      ? [
          {
            text: `- ${run} shell command(s) run, ${failedShell} failed${partial ? "; recent ones and recent failures listed" : ""}.`,
          },
        ]
      : [];
  return { previousCommands, recent, countLine };
}

function nextSteps(analysis: Analysis, hasPending: boolean, previous: Map<string, string>): Item[] {
  if (analysis.todos !== undefined && analysis.todos.length > 0) return items(analysis.todos);
  const last = analysis.lastAssistantText;
  if (last !== undefined) {
    const intents = matching([last], INTENT).slice(0, 5);
    if (intents.length > 0) return bullets(intents);
  }
  if (hasPending) return bullets(["Address the pending user request (see Pending user asks)."]);
  // Older plans are stale once the range has new assistant work.
  return analysis.assistantTexts.length === 0 ? items(previousLines(previous, "Next steps")) : [];
}

function environment(analysis: Analysis): string[] {
  const directories = new Map<string, number>();
  let branch: string | undefined;
  for (const call of analysis.calls) {
    if (call.command === undefined) continue;
    for (const match of call.command.matchAll(
      /(?:^|&&|;|\n)\s*cd\s+("[^"\n]+"|'[^'\n]+'|[^\s;&|]+)/g,
    )) {
      const dir = (match[1] ?? "").replace(/^["']|["']$/g, "");
      if (dir !== "" && dir !== "-" && dir !== "..")
        directories.set(dir, (directories.get(dir) ?? 0) + 1);
    }
    for (const match of call.command.matchAll(/git (?:checkout -[bB]|switch -[cC])\s+([^\s;&|]+)/g))
      branch = match[1];
  }
  const lines: string[] = [];
  let best: [string, number] | undefined;
  for (const entry of directories) if (best === undefined || entry[1] > best[1]) best = entry;
  if (best !== undefined) lines.push(`- Working directory (most used with cd): ${best[0]}`);
  if (branch !== undefined) lines.push(`- Branch created in this range: ${branch}`);
  return lines;
}

/** Files of the ledger plus those listed in a previous summary's Files section. */
function mergePreviousFiles(ledger: Ledger, previousFiles: string | undefined): Ledger["files"] {
  const modified = new Set<string>();
  const read = new Set<string>();
  let kind: "read" | "modified" = "read";
  for (const line of (previousFiles ?? "").split("\n")) {
    const trimmed = line.trim();
    const heading = /^#{1,6}\s+(.*)$/.exec(trimmed);
    if (heading) {
      kind = /modif|chang|writ|creat|edit/i.test(heading[1] ?? "") ? "modified" : "read";
      continue;
    }
    if (!/^[-*+]\s+/.test(trimmed) || isPlaceholder(trimmed)) continue;
    const entry = trimmed.replace(/^[-*+]\s+/, "");
    const path = extractIdentifiers(entry)[0] ?? entry.replace(/`/g, "").split(/\s+/)[0];
    if (path) (kind === "modified" ? modified : read).add(path);
  }
  for (const path of ledger.files.modified) modified.add(path);
  for (const path of ledger.files.read) read.add(path);
  return { modified: [...modified], read: [...read] };
}

// ---------------------------------------------------------------------------
// Rendering and the token budget

function render(plan: Plan): string {
  const bodies: Partial<Record<SummarySection, string>> = {};
  for (const [section, groups] of plan.sections) {
    const blocks: string[] = [];
    for (const group of groups) {
      const lines = group.lists.flat().map((item) => item.text);
      if (lines.length === 0) continue;
      blocks.push(
        group.heading === undefined ? lines.join("\n") : `${group.heading}\n${lines.join("\n")}`,
      );
    }
    bodies[section] = blocks.join("\n\n");
  }
  for (const section of REQUIRED_SECTIONS) {
    if (!bodies[section]?.trim()) bodies[section] = plan.trimmed.has(section) ? TRIMMED : NONE;
  }
  return renderSections(bodies);
}

function fitToBudget(basePlan: SectionPlan, request: SummarizeRequest): string {
  const plan: Plan = { ...basePlan, trimmed: new Set() };
  const count = (text: string): number => countTokens(text, request.model);
  let summary = render(plan);
  let total = count(summary);
  let slack = 0;
  for (let round = 0; round < 8 && total > request.maxTokens; round++) {
    let estimate = total;
    const goal = request.maxTokens - slack;
    while (estimate > goal) {
      const next = plan.trimOrder.find((list) => list.items.length > 0);
      if (next === undefined) break;
      const index = pickIndex(next.items, next.pick);
      const item = next.items[index];
      if (item === undefined) break;
      item.cost ??= count(item.text) + 1;
      if (item.short !== undefined) {
        const shortCost = count(item.short) + 1;
        estimate -= item.cost - shortCost;
        item.text = item.short;
        item.cost = shortCost;
        delete item.short;
      } else {
        estimate -= item.cost;
        next.items.splice(index, 1);
      }
      markTrimmed(plan, next.items);
    }
    summary = render(plan);
    total = count(summary);
    if (plan.trimOrder.every((list) => list.items.length === 0)) break;
    slack += Math.max(16, Math.ceil(request.maxTokens * 0.02));
  }
  return summary;
}

/** Remembers which section a trimmed list belongs to, so an emptied required section says it was trimmed. */
function markTrimmed(plan: Plan, list: Item[]): void {
  for (const [section, groups] of plan.sections) {
    if (groups.some((group) => group.lists.includes(list))) plan.trimmed.add(section);
  }
}

function pickIndex(list: readonly Item[], pick: Pick): number {
  if (pick === "last") return list.length - 1;
  if (pick === "first") return 0;
  const unkept = list.findIndex((item) => item.keep !== true);
  return unkept === -1 ? 0 : unkept;
}

function minimalSummary(request: SummarizeRequest): string {
  const { ledger } = request;
  const first = ledger.userRequests[0];
  return renderSections({
    Goal: first === undefined ? NONE : quote(first),
    Progress: NONE,
    Files:
      [
        ledger.files.modified.length > 0
          ? `### Modified\n${ledger.files.modified.map((p) => `- ${p}`).join("\n")}`
          : "",
        ledger.files.read.length > 0
          ? `### Read\n${ledger.files.read.map((p) => `- ${p}`).join("\n")}`
          : "",
      ]
        .filter((block) => block !== "")
        .join("\n\n") || NONE,
    "Exact identifiers": ledger.identifiers.length > 0 ? packIdentifiers(ledger.identifiers) : NONE,
    "Next steps": NONE,
  });
}
