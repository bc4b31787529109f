/**
 * @module model/task
 * The scripted task every agent runs: 64 model turns over a prepared
 * workspace. The workspace holds 40 notes of about 5 KB, each with unique
 * markers at its start, middle and end (so a read that comes back whole is
 * recognized, and a pruned or cut one is not). The steps: count the notes,
 * read each note (and grep every second one for its middle marker), write a
 * report, print it, and answer. Steps are numbered from 0; the step a tool
 * call belongs to is in its call id, so the model reads where it is from the
 * newest tool result alone (a compacted history has lost the older ones).
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const NOTE_COUNT = 40;

/** What one step asks the agent to do, in no agent's words yet (see `model/dialects`). */
export type TaskAction =
  | { kind: "shell"; command: string }
  | { kind: "read"; path: string }
  | { kind: "write"; path: string; content: string }
  | { kind: "finish"; text: string };

export interface TaskStep {
  index: number;
  action: TaskAction;
  /** Strings the tool's output must contain when it reaches the model (the output arrived whole). */
  expect: string[];
}

export interface Task {
  /** The prompt the agent is started with. */
  prompt: string;
  steps: TaskStep[];
  /** The report's path (relative to the workspace) and a marker its content holds. */
  report: { path: string; marker: string };
}

function notePath(n: number): string {
  return `notes/part-${String(n).padStart(2, "0")}.md`;
}

function marker(runId: string, n: number, where: "BEGIN" | "MID" | "END"): string {
  return `MARK-${runId}-${String(n).padStart(2, "0")}-${where}`;
}

const WORDS =
  "context window compaction agent gateway session summary token budget upstream stream request response tool result message prefix cache marker report note turn history window model provider".split(
    " ",
  );

/** Deterministic filler prose for note `n`: lines of words, varied by a small generator. */
function filler(n: number, lines: number): string[] {
  let state = 2_654_435_761 * (n + 1);
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) >>> 0;
    return state;
  };
  const out: string[] = [];
  for (let line = 0; line < lines; line++) {
    const words: string[] = [];
    for (let word = 0; word < 12; word++) words.push(WORDS[next() % WORDS.length] ?? "note");
    out.push(`${line + 1}. ${words.join(" ")} (${next() % 10_000}).`);
  }
  return out;
}

/** The text of note `n`: about 5 KB, with its three markers. */
export function noteText(runId: string, n: number): string {
  const body = filler(n, 64);
  return [
    `# Part ${n} ${marker(runId, n, "BEGIN")}`,
    "",
    ...body.slice(0, 32),
    `Middle of part ${n}: ${marker(runId, n, "MID")}`,
    ...body.slice(32),
    "",
    `End of part ${n}: ${marker(runId, n, "END")}`,
    "",
  ].join("\n");
}

/** Writes the notes into `workspace` (a fresh directory). */
export function prepareWorkspace(workspace: string, runId: string): void {
  mkdirSync(join(workspace, "notes"), { recursive: true });
  for (let n = 1; n <= NOTE_COUNT; n++) {
    writeFileSync(join(workspace, notePath(n)), noteText(runId, n));
  }
}

/** The 64 steps for run `runId`. */
export function buildTask(runId: string): Task {
  const reportMarker = `REPORT-${runId}`;
  const steps: TaskStep[] = [];
  const add = (action: TaskAction, expect: string[]) =>
    steps.push({ index: steps.length, action, expect });
  add({ kind: "shell", command: "ls notes | wc -l" }, [String(NOTE_COUNT)]);
  for (let n = 1; n <= NOTE_COUNT; n++) {
    add({ kind: "read", path: notePath(n) }, [
      marker(runId, n, "BEGIN"),
      marker(runId, n, "MID"),
      marker(runId, n, "END"),
    ]);
    if (n % 2 === 0) {
      add({ kind: "shell", command: `grep -n 'Middle of part' ${notePath(n)}` }, [
        marker(runId, n, "MID"),
      ]);
    }
  }
  const report = [
    "# Report",
    "",
    reportMarker,
    `Read ${NOTE_COUNT} notes; every marker arrived whole.`,
    "",
  ].join("\n");
  // The write's own output differs by agent (some name the file, some do not): the cat after it checks.
  add({ kind: "write", path: "report.md", content: report }, []);
  add({ kind: "shell", command: "cat report.md" }, [reportMarker]);
  add({ kind: "finish", text: `Done: report.md written (${reportMarker}).` }, []);
  return {
    prompt:
      "Read every note in ./notes, check its markers, then write report.md summarizing them. Use your tools; the harness checks each step.",
    steps,
    report: { path: "report.md", marker: reportMarker },
  };
}
