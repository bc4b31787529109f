/**
 * @module summary/extractive-plan
 * What the extractive summary will say, section by section, before it is
 * rendered: each section's lists of lines (`summary/summary-lines`), the
 * identifiers that must appear verbatim, where they were named, the tool
 * outputs worth fetching back, and the order in which `summary/extractive-budget`
 * trims the lists when the summary is over its token budget.
 */

import type { ChatMessage } from "../messages/types.js";
import { commands, environment } from "./command-lines.js";
import { files } from "./file-lines.js";
import { identifierPlaces, previousIdentifierLines, toolOutputs } from "./identifier-lines.js";
import { buildLedger, trimUserRequest } from "./ledger.js";
import type { Ledger } from "./ledger-types.js";
import { ERRORS_HEADING, errorLine, RUNS_HEADING, runLine } from "./outcome-lines.js";
import { nextSteps, progress } from "./progress-lines.js";
import { analyze } from "./range-reading.js";
import { CONSTRAINT, DECISION, matching, SPECULATION, withoutCutSentence } from "./sentences.js";
import type { SummarizeRequest } from "./summarizer.js";
import {
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
import { parseSections, type SummarySection, withoutSummaryBlocks } from "./template.js";

export interface Plan {
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
  /**
   * The last resort of the budget (`summary/extractive-budget`): the files lists, cut from the
   * oldest, and how many of the identifiers no other line shows are listed (the newest), the
   * others counted with a pointer to recall. Undefined: all of them.
   */
  files: { read: Item[]; modified: Item[] };
  identifierCap?: number;
  /** Where the essentials start in `trimOrder`: they are trimmed only after the last resort. */
  essentialsFrom: number;
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

export function plan(request: SummarizeRequest): Plan {
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
    {
      heading: "### Modified",
      lists: [modified],
      overflow: { list: modified, total: modified.length, noun: "modified files" },
    },
    {
      heading: "### Read",
      lists: [read],
      overflow: { list: read, total: read.length, noun: "files read" },
    },
  ]);

  // Commands & errors: the ledger's runs and errors (failing ones and failed runs kept longest),
  // then the range's commands.
  const { previousCommands, recent, countLine } = commands(analysis, previous);
  const runs: Item[] = (ledger.commands ?? []).map((run) => ({
    text: runLine(run),
    keep: run.failed,
  }));
  const errors: Item[] = (ledger.errors ?? []).map((error) => ({
    text: errorLine(error),
    keep: error.state === "failing",
  }));
  sections.set("Commands & errors", [
    { lists: [countLine, previousCommands, recent] },
    {
      heading: RUNS_HEADING,
      lists: [runs],
      overflow: { list: runs, total: runs.length, noun: "runs (passing ones first)" },
    },
    {
      heading: ERRORS_HEADING,
      lists: [errors],
      overflow: { list: errors, total: errors.length, noun: "errors (fixed ones first)" },
    },
  ]);

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
    { items: errors, pick: "first-unkept" },
    { items: runs, pick: "first-unkept" },
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
    files: { read, modified },
    essentialsFrom: trimOrder.findIndex((entry) => entry.items === blocked),
  };
}
