/**
 * @module summary/extractive
 * The extractive summarizer (tier 4): a structured summary written by code,
 * without a model. Deterministic (same request, same summary), never throws,
 * and always carries every ledger identifier and file verbatim. It says what
 * happened (what changed in each file, which commands ran and how they ended),
 * not only which identifiers were seen.
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
 * - Files: `### Modified`, one line per file saying what was done to it (see
 *   `summary/file-changes`): the edits, writes or commands, failed ones
 *   counted, the definitions touched, lines added and removed, the last change
 *   as before → after, and the last test or build command run after it with
 *   its outcome (or that none ran); `### Read`, the files only read.
 * - Commands & errors: shell commands other than read-only ones (`ls`, `cat`,
 *   `grep`: counted, not listed) and failed calls, with their outcome (see
 *   `summary/call-outcome`), the counts a test run printed (`9 passed, 1
 *   failed`), the first useful error line, and which failures a later run of
 *   the same step resolved. The last 25 and the last 15 failures are listed
 *   (repeats collapsed as `(×n)`); the rest are counted. An error line is tool
 *   output, so it is quoted as data: `output:` and a code span, never as a
 *   statement or a heading of the summary.
 * - Exact identifiers: the ledger's identifiers that no other line shows, each
 *   beside where it was named (the call, or the sentence of the user or the
 *   assistant), then `### Tool outputs worth fetching back`: up to 8 recent
 *   large outputs that are still current (not an edit's confirmation, not a
 *   read of a file changed later, not repeated by a later call), each with its
 *   tool, target, size and tool-call id, and how many more outputs there are,
 *   retrievable by id without being listed.
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
 * appended, duplicates dropped; its list of tool outputs has retired); its
 * Files lines are kept for files this range did not change; its Progress items
 * move into `### Done`, those that were in progress or blocked marked
 * `(earlier, was in progress)` / `(earlier, was blocked)`; its Commands lines
 * are kept before the new ones and its tool-call and command counts are added
 * to the new ones; its Pending user asks survive only while the new range has
 * no final assistant reply; its Next steps are used only when the new range
 * has no assistant text at all.
 *
 * Size: `maxTokens` is respected by trimming, lists of ids before narrative:
 * the tool outputs (then counted as more), the places identifiers were named
 * (the identifiers stay, as a plain list), older commands, Done items,
 * Critical context, Key decisions, Resolved questions, Constraints, then each
 * file's line shortened (to what was done, lines and the later test run) and
 * at last to its path, blocked items, Next steps, in-progress items, Pending
 * user asks, and finally the Goal's latest and first request (shortened
 * before dropped). Ledger identifiers and files are never dropped, so a ledger
 * larger than `maxTokens` yields a summary over it. Operator
 * `instructions`/`focus` steer LLM summarizers only.
 */

import { toolResultCalls } from "../messages/call-ids.js";
import { messageText } from "../messages/content.js";
import type { ChatMessage, ToolCall } from "../messages/types.js";
import { countTokens } from "../tokens/count.js";
import {
  type CallOutcome,
  type CommandRun,
  commandRun,
  isInspection,
  outcomeOf,
  testCounts,
} from "./call-outcome.js";
import { type FileChange, fileChange } from "./file-changes.js";
import { extractIdentifiers, isToolCallId } from "./identifiers.js";
import {
  buildLedger,
  classifyUserMessage,
  type IdentifierSource,
  identifierSources,
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
  TOOL_OUTPUTS_HEADING,
  withoutSummaryBlocks,
} from "./template.js";
import {
  argumentText,
  type EditorState,
  type FileTouch,
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
/** Tool outputs the summary names by id at most; the others are counted. */
const MAX_TOOL_OUTPUTS = 8;
/** A call that modifies more files than this has its change read once, as the command it is. */
const MAX_CHANGES_READ = 20;
/** Outputs shorter than this (characters) are not worth fetching back: the summary says what they said. */
const MIN_OUTPUT_CHARS = 1200;

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
  call: ToolCall;
  name: string;
  shell: boolean;
  command?: string;
  /** The first file the call touches. */
  target?: string;
  touches: FileTouch[];
  result?: string;
  outcome: CallOutcome;
  /** A command that runs tests (`pytest`, `mix test`) or builds or checks (`make`, `tsc`). */
  run?: CommandRun;
  /** The counts its output ends with, for a test or build command. */
  counts?: string;
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
  // One entry per file: a command can name the same file thousands of times (`echo x>x>x…`).
  const seen = new Set<string>();
  const touches = filesTouched(call, editor).filter((touch) => {
    const key = `${touch.kind}:${touch.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const target = touches[0]?.path;
  const run = command === undefined ? undefined : commandRun(command);
  const counts = run !== undefined && result !== undefined ? testCounts(result) : undefined;
  return {
    call,
    name: call.function.name,
    shell,
    ...(command === undefined ? {} : { command }),
    ...(target === undefined ? {} : { target }),
    touches,
    ...(result === undefined ? {} : { result }),
    outcome: outcomeOf(result, command),
    ...(run === undefined ? {} : { run }),
    ...(counts === undefined ? {} : { counts }),
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

/**
 * One line (or block) of a section. Trimming replaces it by `short` once,
 * then by `floor` (a line that must stay, such as a file's path), and drops it
 * only when it has no floor.
 */
interface Item {
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
interface Group {
  heading?: string;
  lists: Item[][];
}

/** Which item of a list goes first: the oldest, the newest, or the oldest not marked `keep`. */
type Pick = "first" | "last" | "first-unkept";

interface Plan {
  /** Every section but Exact identifiers, which is rendered from what the others show. */
  sections: Map<SummarySection, Group[]>;
  /** The ledger's identifiers and files: each appears verbatim in the summary. */
  identifiers: string[];
  /** Where identifiers were named, for those no other line shows. */
  places: Item[];
  /** Tool outputs worth fetching back, and how many outputs the range has. */
  outputs: Item[];
  outputsTotal: number;
  /** Lists to trim, lowest priority first. The lists are the ones rendered, so trimming shows. */
  trimOrder: { items: Item[]; pick: Pick }[];
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

function plan(request: SummarizeRequest): Plan {
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

  // Files: a line per modified file (shortened, then cut to its path, when space is short).
  const { modified, read } = files(analysis, ledger, previous.get("Files"));
  sections.set("Files", [
    { heading: "### Modified", lists: [modified] },
    { heading: "### Read", lists: [read] },
  ]);

  // Commands & errors.
  const { previousCommands, recent, countLine } = commands(analysis, previous);
  sections.set("Commands & errors", [{ lists: [countLine, previousCommands, recent] }]);

  // Exact identifiers: where each was named, and the tool outputs worth fetching back.
  const policyOff = request.identifierPolicy === "off";
  const listedFiles = new Set(
    [...modified, ...read].map((item) => item.floor ?? item.text).map((line) => line.slice(2)),
  );
  const identifiers = [
    ...new Set([...ledger.identifiers, ...ledger.files.modified, ...ledger.files.read]),
  ].filter((id) => id.trim() !== "");
  const places = policyOff
    ? []
    : identifierPlaces(
        identifiers.filter((id) => !listedFiles.has(id)),
        messages,
        previousIdentifierLines(previous),
      );
  const outputs = policyOff ? { items: [], total: 0 } : toolOutputs(analysis, request.model);

  // Next steps.
  const next = nextSteps(analysis, pending.length > 0, previous);
  sections.set("Next steps", [{ lists: [next] }]);

  // Critical context.
  const context = items(
    dedupe([...previousLines(previous, "Critical context"), ...environment(analysis)]),
  );
  sections.set("Critical context", [{ lists: [context] }]);

  const trimOrder: Plan["trimOrder"] = [
    { items: outputs.items, pick: "first" },
    { items: places, pick: "first" },
    { items: previousCommands, pick: "first" },
    { items: recent, pick: "first-unkept" },
    { items: countLine, pick: "first" },
    { items: done, pick: "first" },
    { items: doneDetails, pick: "last" },
    { items: context, pick: "first" },
    { items: decisions, pick: "first" },
    { items: resolved, pick: "first" },
    { items: constraints, pick: "last" },
    { items: modified, pick: "first" },
    { items: blocked, pick: "first" },
    { items: next, pick: "last" },
    { items: inProgress, pick: "first" },
    { items: pending, pick: "first" },
    { items: goal, pick: "last" },
  ];
  return {
    sections,
    identifiers,
    places,
    outputs: outputs.items,
    outputsTotal: outputs.total,
    trimOrder,
    trimmed: new Set(),
  };
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
    blocked.push({ text: `- ${describeCall(call)} → ${outcomeText(call)}` });
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

/** Whether a later call of the range repeated the failed step `index` and succeeded. */
function resolvedLater(calls: readonly CallRecord[], index: number): boolean {
  const key = resolutionKey(calls[index] as CallRecord);
  return calls
    .slice(index + 1)
    .some((later) => later.outcome.status === "ok" && resolutionKey(later) === key);
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

/** How a call ended, with its test counts: `ok (12 passed)`, `exit 1 (1 failed, 9 passed)`. */
function outcomeHead(call: CallRecord): string {
  const { outcome } = call;
  if (outcome.status === "pending") return "no result yet";
  const head =
    outcome.exitCode !== undefined
      ? outcome.exitCode === 0 && outcome.status === "ok"
        ? "ok"
        : `exit ${outcome.exitCode}`
      : outcome.status;
  const shown = outcome.status === "failed" && outcome.exitCode === 0 ? "failed (exit 0)" : head;
  return call.counts === undefined ? shown : `${shown} (${call.counts})`;
}

/** How a call ended and, for a failure, its error line quoted as the output it is. */
function outcomeText(call: CallRecord): string {
  const { error } = call.outcome;
  return error === undefined
    ? outcomeHead(call)
    : `${outcomeHead(call)}, output: ${codeSpan(error)}`;
}

/** `text` as a Markdown code span: a fence longer than any backtick run in it, so it cannot close early. */
function codeSpan(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(longest + 1);
  const pad = longest > 0 ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

// ---------------------------------------------------------------------------
// Files

interface ChangeEntry {
  record: CallRecord;
  /** The call's position in the range. */
  index: number;
  change: FileChange;
}

/** The previous summary's Files lines: modified files by path (the line kept whole), read files. */
function previousFiles(body: string | undefined): {
  modified: Map<string, string>;
  read: string[];
} {
  const modified = new Map<string, string>();
  const read: string[] = [];
  let kind: "read" | "modified" = "read";
  for (const line of (body ?? "").split("\n")) {
    const trimmed = line.trim();
    const heading = /^#{1,6}\s+(.*)$/.exec(trimmed);
    if (heading) {
      kind = /modif|chang|writ|creat|edit/i.test(heading[1] ?? "") ? "modified" : "read";
      continue;
    }
    if (!/^[-*+]\s+/.test(trimmed) || isPlaceholder(trimmed)) continue;
    const entry = trimmed.replace(/^[-*+]\s+/, "");
    const dash = entry.indexOf(FILE_SEPARATOR);
    const path =
      dash > 0
        ? entry.slice(0, dash)
        : (extractIdentifiers(entry)[0] ?? entry.replace(/`/g, "").split(/\s+/)[0]);
    if (!path) continue;
    if (kind === "modified") modified.set(path, `- ${entry}`);
    else read.push(path);
  }
  return { modified, read };
}

/** Between a modified file's path and what was done to it. */
const FILE_SEPARATOR = " — ";

/** `### Modified` (a line per file, what was done to it) and `### Read` (the files only read). */
function files(
  analysis: Analysis,
  ledger: Ledger,
  previousBody: string | undefined,
): { modified: Item[]; read: Item[] } {
  const earlier = previousFiles(previousBody);
  const changes = new Map<string, ChangeEntry[]>();
  analysis.calls.forEach((record, index) => {
    const touched = record.touches.filter((touch) => touch.kind === "modified");
    // A command that changes many files at once is named, not read again for each of them.
    const many = touched.length > MAX_CHANGES_READ;
    for (const touch of touched) {
      const list = changes.get(touch.path) ?? [];
      const change: FileChange =
        many && record.command !== undefined
          ? {
              how: "command",
              symbols: [],
              added: 0,
              removed: 0,
              command: firstLine(record.command),
            }
          : fileChange(record.call, touch.path);
      list.push({ record, index, change });
      changes.set(touch.path, list);
    }
  });
  const paths = dedupe([...earlier.modified.keys(), ...ledger.files.modified, ...changes.keys()]);
  const modified = paths.map((path): Item => {
    const floor = `- ${path}`;
    const entries = changes.get(path);
    const before = earlier.modified.get(path);
    if (entries !== undefined) return fileItem(path, entries, analysis, before !== undefined);
    const text =
      before === undefined || before === floor
        ? `${floor}${FILE_SEPARATOR}changed in earlier turns`
        : before;
    return { text, floor };
  });
  const modifiedPaths = new Set(paths);
  const read = bullets(
    dedupe([...earlier.read, ...ledger.files.read]).filter((path) => !modifiedPaths.has(path)),
  );
  return { modified, read };
}

/** The line of a file this range modified: what was done, where, how much, the last change, the run after it. */
function fileItem(
  path: string,
  entries: readonly ChangeEntry[],
  analysis: Analysis,
  changedEarlier: boolean,
): Item {
  // A failed edit tool changed nothing; a failed command may well have (`cat > t.py <<EOF … python t.py`).
  const applied = entries.filter(
    (entry) => entry.record.shell || entry.record.outcome.status !== "failed",
  );
  const failed = entries.length - applied.length;
  let what = actions(applied.map((entry) => entry.change));
  if (what === "") {
    what = `${failed === 1 ? "1 change" : `${failed} changes`} failed, file left unchanged`;
  } else if (failed > 0) {
    what += ` (${failed} more failed)`;
  }
  if (changedEarlier) what += ", also changed in earlier turns";

  const symbols = dedupe(applied.flatMap((entry) => entry.change.symbols)).slice(0, 3);
  const writesOnly = applied.every((entry) => entry.change.how === "write");
  const where =
    symbols.length === 0
      ? ""
      : `${writesOnly ? "defining" : "touching"} ${symbols.map(codeSpan).join(", ")}`;
  const added = applied.reduce((sum, entry) => sum + entry.change.added, 0);
  const removed = applied.reduce((sum, entry) => sum + entry.change.removed, 0);
  const size =
    added + removed === 0
      ? ""
      : `${[added > 0 ? `+${added}` : "", removed > 0 ? `−${removed}` : ""].filter(Boolean).join(" ")} line${added + removed === 1 ? "" : "s"}`;
  const lastEdit = [...applied]
    .reverse()
    .find((entry) => entry.change.before !== undefined || entry.change.after !== undefined);
  const last = lastEdit === undefined ? "" : `last ${changeText(lastEdit.change)}`;

  // The last test run after the file's last change says most; else the last build or check.
  const lastIndex = entries[entries.length - 1]?.index ?? -1;
  const after = analysis.calls
    .slice(lastIndex + 1)
    .filter((call) => call.run !== undefined && call.outcome.status !== "pending");
  const check = after.findLast((call) => call.run?.kind === "test") ?? after[after.length - 1];
  const exercised =
    check?.run === undefined
      ? "not tested since"
      : `then ${codeSpan(`$ ${oneLine(check.run.step, 60)}`)} → ${outcomeHead(check)}`;

  const line = (parts: readonly string[]) =>
    `- ${path}${FILE_SEPARATOR}${parts.filter((part) => part !== "").join("; ")}`;
  const text = line([what, where, size, last, exercised]);
  const short = line([what, size, exercised]);
  return { text, ...(short === text ? {} : { short }), floor: `- ${path}` };
}

/** What the changes did, in the order of their kinds: `written, then 3 edits`, `changed by $ …`. */
function actions(changes: readonly FileChange[]): string {
  const kinds: FileChange["how"][] = [];
  const counts = new Map<FileChange["how"], number>();
  const commands: string[] = [];
  for (const change of changes) {
    if (!counts.has(change.how)) kinds.push(change.how);
    counts.set(change.how, (counts.get(change.how) ?? 0) + 1);
    if (change.how === "command" && change.command !== undefined) commands.push(change.command);
  }
  const phrases = kinds.map((how) => {
    const n = counts.get(how) ?? 0;
    switch (how) {
      case "edit":
        return n === 1 ? "1 edit" : `${n} edits`;
      case "write":
        return n === 1 ? "written" : `written ${n} times`;
      case "undo":
        return n === 1 ? "1 edit undone" : `${n} edits undone`;
      case "delete":
        return "deleted";
      case "move":
        return "moved";
      case "restore":
        return "restored by git";
      case "command": {
        const distinct = dedupe(commands);
        const shown = distinct
          .slice(0, 2)
          .map((command) => codeSpan(`$ ${oneLine(command, 80)}`))
          .join(", ");
        const more = distinct.length > 2 ? ` and ${distinct.length - 2} more commands` : "";
        return `changed by ${shown}${more}`;
      }
    }
    return how;
  });
  return phrases.join(", then ");
}

function changeText(change: FileChange): string {
  if (change.before && change.after)
    return `${codeSpan(change.before)} → ${codeSpan(change.after)}`;
  if (change.after) return `added ${codeSpan(change.after)}`;
  return `removed ${codeSpan(change.before ?? "")}`;
}

// ---------------------------------------------------------------------------
// Commands

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
  // Read-only commands that worked (`ls`, `cat`, `grep`) say nothing about progress: counted only.
  const quiet = (call: CallRecord) =>
    call.command !== undefined && call.outcome.status === "ok" && isInspection(call.command);
  const relevant: { call: CallRecord; index: number }[] = [];
  analysis.calls.forEach((call, index) => {
    if ((call.shell && !quiet(call)) || call.outcome.status === "failed")
      relevant.push({ call, index });
  });
  // Collapse repeats of the same command in a row, keeping the last outcome.
  const collapsed: { call: CallRecord; index: number; times: number }[] = [];
  for (const { call, index } of relevant) {
    const last = collapsed[collapsed.length - 1];
    if (last !== undefined && callKey(last.call) === callKey(call)) {
      last.call = call;
      last.index = index;
      last.times++;
    } else {
      collapsed.push({ call, index, times: 1 });
    }
  }
  const recentFailures = collapsed
    .filter((entry) => entry.call.outcome.status === "failed")
    .slice(-15);
  const recentAll = collapsed.slice(-25);
  const shown = new Set([...recentFailures, ...recentAll]);
  const ordered = collapsed.filter((entry) => shown.has(entry));
  const recent = ordered.map((entry): Item => {
    const failed = entry.call.outcome.status === "failed";
    const resolved = failed && resolvedLater(analysis.calls, entry.index);
    return {
      text: `- ${describeCall(entry.call)}${entry.times > 1 ? ` (×${entry.times})` : ""} → ${outcomeText(entry.call)}${resolved ? "; resolved by a later run" : ""}`,
      keep: failed && !resolved,
    };
  });
  const shellCalls = analysis.calls.filter((call) => call.shell);
  const run = earlierRun + shellCalls.length;
  const failedShell =
    earlierFailed + shellCalls.filter((call) => call.outcome.status === "failed").length;
  const quietCount = shellCalls.filter(quiet).length;
  const partial = ordered.length < collapsed.length || earlierRun > 0;
  const notes = [
    partial ? "recent ones and recent failures listed" : "",
    quietCount > 0
      ? `${quietCount} read-only command${quietCount === 1 ? "" : "s"} (ls, cat, grep…) not listed`
      : "",
  ].filter((note) => note !== "");
  const countLine: Item[] =
    run > 0
      ? [
          {
            text: `- ${run} shell command(s) run, ${failedShell} failed${notes.length > 0 ? `; ${notes.join("; ")}` : ""}.`,
          },
        ]
      : [];
  return { previousCommands, recent, countLine };
}

// ---------------------------------------------------------------------------
// Exact identifiers and tool outputs

/**
 * The calls whose output is worth fetching back, newest first, at most
 * MAX_TOOL_OUTPUTS: large enough to say more than the summary does, current
 * (not a read of a file the range changed afterwards, not repeated by a later
 * call of the same tool on the same target), not an edit's confirmation, and
 * named by an id no other call of the range reuses.
 */
function toolOutputs(analysis: Analysis, model: string): { items: Item[]; total: number } {
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
function previousIdentifierLines(previous: Map<string, string>): string[] {
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
function identifierPlaces(
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
  let head: string;
  if (source.kind === "call") {
    const shell = isShellCall(source.call);
    const command = shell ? shellCommandOf(source.call) : undefined;
    const path = filesTouched(source.call)[0]?.path;
    const first = Object.values(parseArguments(source.call)).find(
      (value): value is string => typeof value === "string" && value.trim() !== "",
    );
    // A file's name is enough here (its full path stands under Files), unless the line names a
    // tool-call id (a withheld secret's pointer): an id stands beside its call's tool and target.
    const named = ids.some(isToolCallId) ? path : path?.split("/").pop();
    const subject =
      command !== undefined
        ? `$ ${oneLine(firstLine(command), 60)}`
        : named !== undefined
          ? named
          : first === undefined
            ? ""
            : oneLine(first, 60);
    head = `- named by ${source.call.function.name}${subject === "" ? "" : ` ${codeSpan(subject)}`}`;
    // Named further down a command (a script's body): the words around it. A file's content is
    // placed well enough by the file's name.
    const deeper = command === undefined ? undefined : ids.find((id) => !head.includes(id));
    if (deeper !== undefined) {
      const near = snippet(argumentText(source.call), deeper);
      if (near.includes(deeper)) head += ` in ${codeSpan(near)}`;
    }
  } else {
    head = `- named by the ${source.kind}: ${codeSpan(snippet(source.text, ids[0] ?? ""))}`;
  }
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
  bodies["Exact identifiers"] = identifiersBody(plan, Object.values(bodies).join("\n"));
  for (const section of REQUIRED_SECTIONS) {
    if (!bodies[section]?.trim()) bodies[section] = plan.trimmed.has(section) ? TRIMMED : NONE;
  }
  return renderSections(bodies);
}

/**
 * The identifiers the other sections do not show, each beside where it was
 * named while its place line is kept, else in a plain list; then the tool
 * outputs worth fetching back and how many more there are.
 */
function identifiersBody(plan: Plan, shown: string): string {
  const missing = new Set(plan.identifiers.filter((id) => !shown.includes(id)));
  const lines: string[] = [];
  for (const place of plan.places) {
    if (!(place.ids ?? []).some((id) => missing.has(id))) continue;
    lines.push(place.text);
    for (const id of missing) if (place.text.includes(id)) missing.delete(id);
  }
  if (missing.size > 0) lines.push(packIdentifiers([...missing]));
  const blocks = lines.length > 0 ? [lines.join("\n")] : [];
  const more = plan.outputsTotal - plan.outputs.length;
  const moreLine = `- ${more}${plan.outputs.length > 0 ? " more" : ""} tool output${more === 1 ? "" : "s"}, retrievable by tool call id.`;
  if (plan.outputs.length > 0) {
    const list = plan.outputs.map((item) => item.text);
    if (more > 0) list.push(moreLine);
    blocks.push(`${TOOL_OUTPUTS_HEADING}\n${list.join("\n")}`);
  } else if (more > 0) {
    blocks.push(moreLine);
  }
  return blocks.join("\n\n");
}

function fitToBudget(plan: Plan, request: SummarizeRequest): string {
  const count = (text: string): number => countTokens(text, request.model);
  let summary = render(plan);
  let total = count(summary);
  let slack = 0;
  for (let round = 0; round < 12 && total > request.maxTokens; round++) {
    let estimate = total;
    const goal = request.maxTokens - slack;
    while (estimate > goal) {
      const next = plan.trimOrder.find((list) => list.items.some(trimmable));
      if (next === undefined) break;
      const index = pickIndex(next.items, next.pick);
      const item = next.items[index];
      if (item === undefined) break;
      item.cost ??= count(item.text) + 1;
      const replacement = item.short ?? item.floor;
      if (replacement !== undefined) {
        const cost = count(replacement) + 1;
        estimate -= item.cost - cost;
        item.text = replacement;
        item.cost = cost;
        delete item.short;
      } else {
        // A dropped place line leaves its identifiers in the plain list.
        const left = item.ids === undefined ? 0 : count(item.ids.join(", "));
        estimate -= item.cost - left;
        next.items.splice(index, 1);
      }
      markTrimmed(plan, next.items);
    }
    summary = render(plan);
    total = count(summary);
    if (plan.trimOrder.every((list) => !list.items.some(trimmable))) break;
    slack += Math.max(16, Math.ceil(request.maxTokens * 0.02));
  }
  return summary;
}

/** Whether trimming can still take something from `item`. */
function trimmable(item: Item): boolean {
  return item.short !== undefined || item.floor === undefined || item.text !== item.floor;
}

/** Remembers which section a trimmed list belongs to, so an emptied required section says it was trimmed. */
function markTrimmed(plan: Plan, list: Item[]): void {
  for (const [section, groups] of plan.sections) {
    if (groups.some((group) => group.lists.includes(list))) plan.trimmed.add(section);
  }
}

function pickIndex(list: readonly Item[], pick: Pick): number {
  const open = list.flatMap((item, index) => (trimmable(item) ? [index] : []));
  if (pick === "last") return open[open.length - 1] ?? -1;
  if (pick === "first") return open[0] ?? -1;
  const unkept = open.find((index) => list[index]?.keep !== true);
  return unkept ?? open[0] ?? -1;
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
