/**
 * @module summary/file-lines
 * The extractive summary's Files section: under `### Modified` one line per
 * file saying what was done to it (see `summary/file-changes`): the edits,
 * writes or commands, failed edits counted, the definitions touched, lines
 * added and removed, the last change as before → after, and the last test run
 * after it (else the last build or check) with its outcome, or that none ran;
 * a shortened form and the bare path for when space is short. Under `### Read`
 * the files only read. A previous summary's lines stay for files this range
 * did not change.
 */

import { type FileChange, fileChange } from "./file-changes.js";
import { extractIdentifiers } from "./identifiers.js";
import type { Ledger } from "./ledger-types.js";
import { type Analysis, type CallRecord, firstLine, outcomeHead } from "./range-reading.js";
import { bullets, codeSpan, dedupe, type Item, isPlaceholder, oneLine } from "./summary-lines.js";

/** A call that modifies more files than this has its change read once, as the command it is. */
const MAX_CHANGES_READ = 20;

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
export function files(
  analysis: Analysis,
  ledger: Ledger,
  previousBody: string | undefined,
): { modified: Item[]; read: Item[] } {
  const earlier = previousFiles(previousBody);
  const changes = new Map<string, ChangeEntry[]>();
  analysis.calls.forEach((record, index) => {
    const touched = record.touches.filter((touch) => touch.kind === "modified");
    // A command that changes many files at once is named, not read again for each of them.
    const shared: FileChange | undefined =
      touched.length > MAX_CHANGES_READ && record.command !== undefined
        ? { how: "command", symbols: [], added: 0, removed: 0, command: firstLine(record.command) }
        : undefined;
    for (const touch of touched) {
      const list = changes.get(touch.path) ?? [];
      const change = shared ?? fileChange(record.call, touch.path);
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
  const described = lastEdit === undefined ? "" : changeText(lastEdit.change);
  const last =
    described === "" || lastEdit?.change.how === "write" ? described : `last ${described}`;

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
  // Shortened, a line still says how the file changed: where, else its last change.
  const short = line([what, where === "" ? last : where, exercised]);
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
  // A write that defines something is named by its definitions; else its first line says what it is.
  if (change.how === "write")
    return change.after && change.symbols.length === 0 ? `starting ${codeSpan(change.after)}` : "";
  if (change.before && change.after)
    return `${codeSpan(change.before)} → ${codeSpan(change.after)}`;
  if (change.after) return `added ${codeSpan(change.after)}`;
  return `removed ${codeSpan(change.before ?? "")}`;
}
