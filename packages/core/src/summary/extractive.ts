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
 * - Files (`summary/file-lines`): `### Modified`, one line per file saying
 *   what was done to it: the edits, writes or commands, failed ones counted,
 *   the definitions touched, lines added and removed, the last change as
 *   before → after, and the last test run after it with its outcome (or that
 *   none ran); `### Read`, the files only read.
 * - Commands & errors: shell commands other than read-only ones (`ls`, `cat`,
 *   `grep`: counted, not listed) and failed calls, with their outcome (see
 *   `summary/call-outcome`), the counts a test run printed (`9 passed, 1
 *   failed`), the first useful error line, and which failures a later run of
 *   the same step resolved. The last 25 and the last 15 failures are listed
 *   (repeats collapsed as `(×n)`); the rest are counted. An error line is tool
 *   output, so it is quoted as data: `output:` and a code span, never as a
 *   statement or a heading of the summary.
 * - Exact identifiers (`summary/identifier-lines`): the ledger's identifiers
 *   that no other line shows, each beside where it was named (the call, or the
 *   sentence of the user or the assistant), then `### Tool outputs worth
 *   fetching back`: up to 8 recent large outputs that are still current, each
 *   with its tool, target, size and tool-call id, and how many more outputs
 *   there are, retrievable by id without being listed.
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

import type { ChatMessage } from "../messages/types.js";
import { countTokens } from "../tokens/count.js";
import { isInspection } from "./call-outcome.js";
import { files } from "./file-lines.js";
import { identifierPlaces, previousIdentifierLines, toolOutputs } from "./identifier-lines.js";
import {
  buildLedger,
  packIdentifiers,
  TRUNCATION_MARK,
  trimUserRequest,
  verbatimIn,
} from "./ledger.js";
import type { Ledger } from "./ledger-types.js";
import {
  type Analysis,
  analyze,
  type CallRecord,
  callKey,
  describeCall,
  MAX_SENTENCE,
  outcomeText,
  resolutionKey,
  resolvedLater,
} from "./range-reading.js";
import type { SummarizeRequest, Summarizer } from "./summarizer.js";
import {
  bullets,
  dedupe,
  type Group,
  type Item,
  isPlaceholder,
  items,
  oneLine,
  type Pick,
  previousLines,
  quote,
} from "./summary-lines.js";
import {
  parseSections,
  REQUIRED_SECTIONS,
  renderSections,
  type SummarySection,
  TOOL_OUTPUTS_HEADING,
  withoutSummaryBlocks,
} from "./template.js";

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

// ---------------------------------------------------------------------------
// Planning the sections

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

// ---------------------------------------------------------------------------
// Files

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
  const isShown = verbatimIn(shown);
  const missing = new Set(plan.identifiers.filter((id) => !isShown(id)));
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
  // Trimming only ever makes items less trimmable: the lists run out in trim order, and in a list
  // trimmed from the front the items before the first trimmable one stay as they are. Cursors keep
  // finding the next item linear in the number of items (a session can touch thousands of files).
  let current = 0;
  const fronts = new Map<Item[], number>();
  const nextItem = (): { list: Plan["trimOrder"][number]; index: number } | undefined => {
    for (; current < plan.trimOrder.length; current++) {
      const list = plan.trimOrder[current];
      if (list === undefined) break;
      const index = pickIndex(list.items, list.pick, fronts);
      if (index !== -1) return { list, index };
    }
    return undefined;
  };
  for (let round = 0; round < 12 && total > request.maxTokens; round++) {
    let estimate = total;
    const goal = request.maxTokens - slack;
    while (estimate > goal) {
      const next = nextItem();
      const item = next?.list.items[next.index];
      if (next === undefined || item === undefined) break;
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
        next.list.items.splice(next.index, 1);
      }
      markTrimmed(plan, next.list.items);
    }
    summary = render(plan);
    total = count(summary);
    if (nextItem() === undefined) break;
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

function pickIndex(list: readonly Item[], pick: Pick, fronts: Map<Item[], number>): number {
  if (pick === "last") return list.findLastIndex(trimmable);
  if (pick === "first") {
    let index = fronts.get(list as Item[]) ?? 0;
    while (index < list.length && !trimmable(list[index] as Item)) index++;
    fronts.set(list as Item[], index);
    return index < list.length ? index : -1;
  }
  const first = list.findIndex(trimmable);
  const unkept = list.findIndex((item) => item.keep !== true && trimmable(item));
  return unkept === -1 ? first : unkept;
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
