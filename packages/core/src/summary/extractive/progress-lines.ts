/**
 * @module summary/extractive/progress-lines
 * The Progress and Next steps sections of the extractive summary: `### Done`
 * (the previous summary's progress, marked when it was not done; tool-call
 * counts per tool; assistant sentences reporting finished work; the final
 * reply), `### In progress` (the last assistant message of an open turn, calls
 * still waiting), `### Blocked` (recent failures no later call resolved), and
 * the next steps (open todo items, else intents of the last assistant message).
 */

import {
  bullets,
  type Item,
  isPlaceholder,
  items,
  oneLine,
  previousLines,
} from "../summary-lines.js";
import { type Analysis, describeCall, outcomeText, resolutionKey } from "./range-reading.js";
import { DONE, FUTURE, INTENT, matching } from "./sentences.js";

const MAX_LAST_MESSAGE = 400;
const TOOL_CALLS_PREFIX = "Tool calls: ";

export function progress(
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

export function nextSteps(
  analysis: Analysis,
  hasPending: boolean,
  previous: Map<string, string>,
): Item[] {
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
