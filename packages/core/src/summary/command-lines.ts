/**
 * @module summary/command-lines
 * What the shell commands of a range tell the extractive summary: the
 * Commands & errors section (commands other than read-only ones, and failed
 * calls, with their outcome; repeats collapsed; the previous summary's lines
 * kept and its counts added to the new ones), and the Critical context they
 * set (the most used `cd` target, the branch created).
 */

import { isInspection } from "./call-outcome.js";
import { ERRORS_HEADING, RUNS_HEADING } from "./outcome-lines.js";
import {
  type Analysis,
  type CallRecord,
  callKey,
  describeCall,
  outcomeText,
  resolvedLater,
} from "./range-reading.js";
import { type Item, previousLines } from "./summary-lines.js";

/**
 * The previous summary's sections with the ledger's lists of runs and errors taken out of
 * Commands & errors: the ledger carries those (`summary/outcome-lines`), and writes them anew.
 */
function withoutLedgerLists(previous: Map<string, string>): Map<string, string> {
  const body = previous.get("Commands & errors");
  if (body === undefined) return previous;
  const kept: string[] = [];
  let skipping = false;
  for (const line of body.split("\n")) {
    if (line.trim().startsWith("#"))
      skipping = [RUNS_HEADING, ERRORS_HEADING].includes(line.trim());
    if (!skipping) kept.push(line);
  }
  return new Map([...previous, ["Commands & errors", kept.join("\n")]]);
}

const COUNT_LINE = /^- (\d+) shell command\(s\) run, (\d+) failed/;

export function commands(
  analysis: Analysis,
  previous: Map<string, string>,
): { previousCommands: Item[]; recent: Item[]; countLine: Item[] } {
  const previousCommands: Item[] = [];
  let earlierRun = 0;
  let earlierFailed = 0;
  for (const line of previousLines(withoutLedgerLists(previous), "Commands & errors")) {
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
  // Test and build runs are the ledger's (`summary/outcome-lines`): their latest outcome, and the
  // errors they met, are listed there.
  analysis.calls.forEach((call, index) => {
    if (call.run !== undefined && call.outcome.status !== "pending") return;
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

export function environment(analysis: Analysis): string[] {
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
