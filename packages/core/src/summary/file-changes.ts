/**
 * @module summary/file-changes
 * What a tool call changed in a file it modified, read from its arguments
 * (never from its output): the definitions the change touches (`def parse`,
 * `class Rule_L036`), the lines it added and removed, and the first changed
 * line before and after. Read from edit tools (`Edit`, `MultiEdit`,
 * `str_replace_editor`, `edit_file` with old/new text), whole-file writes,
 * patches (unified diffs and Codex `*** Update File:` blocks, their hunk
 * headers), here-documents written to the file, `sed -i 's/a/b/'`, and
 * `rm`/`mv`/`git checkout --`; any other command is named as what changed it.
 * The deterministic summary writes one line per modified file from these.
 */

import type { ToolCall } from "../messages/types.js";
import {
  argumentText,
  parseArguments,
  shellCommandOf,
  toolFamily,
  toolName,
} from "./tool-calls.js";

export interface FileChange {
  /** What the call did to the file. */
  how: "edit" | "write" | "delete" | "move" | "restore" | "undo" | "command";
  /** Definitions in the changed lines (else in the text around them), first seen first. */
  symbols: string[];
  added: number;
  removed: number;
  /**
   * The first line the change removed and the first it added, when the arguments show them (a
   * whole-file write: its first line).
   */
  before?: string;
  after?: string;
  /** The command's first line, when a shell command made the change. */
  command?: string;
}

/** Old and new text of one replacement. */
interface Replacement {
  before: string;
  after: string;
}

const OLD_KEYS = ["old_string", "old_str", "old_text", "oldText", "search", "old"];
const NEW_KEYS = ["new_string", "new_str", "new_text", "newText", "replace", "new"];
const CONTENT_KEYS = ["content", "file_text", "text", "contents", "new_source", "code"];

/** What `call` changed in `path`, which it modified (see `filesTouched`). */
export function fileChange(call: ToolCall, path: string): FileChange {
  const args = parseArguments(call);
  switch (toolFamily(call)) {
    case "editor":
      return editorChange(args);
    case "patch":
      return patchChange(argumentText(call), path) ?? { ...NOTHING, how: "edit" };
    case "swe-agent":
      return sweAgentChange(shellCommandOf(call) ?? "");
    case "shell":
      return shellChange(shellCommandOf(call) ?? "", path);
    default:
      return toolChange(call, args);
  }
}

const NOTHING: Omit<FileChange, "how"> = { symbols: [], added: 0, removed: 0 };

function stringArgument(args: Readonly<Record<string, unknown>>, keys: readonly string[]) {
  for (const key of keys) {
    const value = args[key];
    if (typeof value === "string") return value;
  }
  return undefined;
}

function editorChange(args: Readonly<Record<string, unknown>>): FileChange {
  const text = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : "");
  switch (args.command) {
    case "create":
      return written(text("file_text"));
    case "insert":
      return replaced([{ before: "", after: text("new_str") }]);
    case "undo_edit":
      return { ...NOTHING, how: "undo" };
    default:
      return replaced([{ before: text("old_str"), after: text("new_str") }]);
  }
}

/** Edit and write tools by their arguments: replacements, a list of edits, or the whole content. */
function toolChange(call: ToolCall, args: Readonly<Record<string, unknown>>): FileChange {
  const name = toolName(call);
  if (Array.isArray(args.edits)) {
    const edits: Replacement[] = [];
    for (const edit of args.edits) {
      if (typeof edit !== "object" || edit === null) continue;
      const entry = edit as Record<string, unknown>;
      edits.push({
        before: stringArgument(entry, OLD_KEYS) ?? "",
        after: stringArgument(entry, NEW_KEYS) ?? "",
      });
    }
    return replaced(edits);
  }
  const after = stringArgument(args, NEW_KEYS);
  if (after !== undefined)
    return replaced([{ before: stringArgument(args, OLD_KEYS) ?? "", after }]);
  const content = stringArgument(args, CONTENT_KEYS);
  if (content !== undefined) return written(content);
  if (/delete|remove/.test(name)) return { ...NOTHING, how: "delete" };
  if (/rename|move/.test(name)) return { ...NOTHING, how: "move" };
  return { ...NOTHING, how: "edit" };
}

function written(content: string): FileChange {
  const lines = contentLines(content);
  const first = lines.find(meaningful);
  return {
    ...NOTHING,
    how: "write",
    symbols: definitions(lines),
    added: lines.length,
    ...(first === undefined ? {} : { after: clip(first) }),
  };
}

function replaced(edits: readonly Replacement[]): FileChange {
  const change: FileChange = { ...NOTHING, how: "edit", symbols: [] };
  const context: string[] = [];
  for (const edit of edits) {
    const before = contentLines(edit.before);
    const after = contentLines(edit.after);
    const diff = lineDiff(before.filter(meaningful), after.filter(meaningful));
    change.added += diff.added.length;
    change.removed += diff.removed.length;
    change.symbols.push(...definitions([...diff.removed, ...diff.added]));
    context.push(...before, ...after);
    if (change.before === undefined && change.after === undefined) setFirstChange(change, diff);
  }
  // No definition among the changed lines: the one the edit sits in, as its context shows.
  if (change.symbols.length === 0) change.symbols.push(...definitions(context));
  change.symbols = [...new Set(change.symbols)];
  return change;
}

/** `edit 12:15` (SWE-agent), replacing the open file's lines with the text up to `end_of_edit`. */
function sweAgentChange(command: string): FileChange {
  const [head = "", ...body] = command.split("\n");
  if (/^\s*create\b/.test(head)) return { ...NOTHING, how: "write" };
  const end = body.findIndex((line) => line.trim() === "end_of_edit");
  const lines = contentLines((end === -1 ? body : body.slice(0, end)).join("\n"));
  const range = /^\s*edit\s+(\d+):(\d+)/.exec(head);
  const removed = range === null ? 0 : Math.max(0, Number(range[2]) - Number(range[1]) + 1);
  return { ...NOTHING, how: "edit", symbols: definitions(lines), added: lines.length, removed };
}

function shellChange(command: string, path: string): FileChange {
  const first = firstLine(command);
  const patch = /\bgit apply\b|\bpatch\s+-p|apply_patch|\*\*\* (?:Update|Add) File:/.test(command)
    ? patchChange(command, path)
    : undefined;
  if (patch !== undefined) return { ...patch, command: first };
  const body = hereDocument(command, path);
  if (body !== undefined) return written(body);
  const sed = sedSubstitution(command, path);
  if (sed !== undefined) return { ...NOTHING, how: "edit", ...sed, command: first };
  const step = stepNaming(command, path);
  if (/^(?:\S+=\S+\s+)*(?:sudo\s+)?rm\b|^git rm\b/.test(step)) return { ...NOTHING, how: "delete" };
  if (/^(?:git\s+)?mv\b/.test(step)) return { ...NOTHING, how: "move", command: first };
  if (/^git (?:checkout|restore)\b/.test(step))
    return { ...NOTHING, how: "restore", command: first };
  return { ...NOTHING, how: "command", command: first };
}

/** The simple command of `command` (`a && b; c`) that names `path`, else the whole first line. */
function stepNaming(command: string, path: string): string {
  for (const step of command.split(/&&|\|\||;|\n/)) {
    if (step.includes(path)) return step.trim();
  }
  return firstLine(command);
}

/** The body of a here-document the command writes to `path` (`cat > path << 'EOF'`). */
function hereDocument(command: string, path: string): string | undefined {
  const lines = command.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const start = /(?<!<)<<(?!<)-?[ \t]*(['"]?)([A-Za-z_][\w.-]*)\1/.exec(line);
    if (start === null || !/>{1,2}/.test(line) || !line.includes(path)) continue;
    const delimiter = start[2];
    const end = lines.findIndex((candidate, j) => j > i && candidate.trim() === delimiter);
    return lines.slice(i + 1, end === -1 ? lines.length : end).join("\n");
  }
  return undefined;
}

/** `sed -i 's/old/new/' path`: the substitution as before and after. */
function sedSubstitution(
  command: string,
  path: string,
): Pick<FileChange, "before" | "after"> | undefined {
  const step = stepNaming(command, path);
  if (!/^sed\b/.test(step) || !/\s-[A-Za-z]*i/.test(step)) return undefined;
  const expression = /\s(?:-e\s+)?(['"])s(.)(.*?)\2(.*?)\2[gip0-9]*\1/.exec(step);
  if (expression === null) return {};
  return { before: clip(expression[3] ?? ""), after: clip(expression[4] ?? "") };
}

const DIFF_FILE = /^(?:\+\+\+ (?:b\/)?(.+?)(?:\t.*)?|\*\*\* (?:Update|Add|Delete) File: (.+))$/;

/** The part of a patch that changes `path`: its +/- lines and the definitions its hunk headers name. */
function patchChange(text: string, path: string): FileChange | undefined {
  let inFile = false;
  let found = false;
  const change: FileChange = { ...NOTHING, how: "edit", symbols: [] };
  const removed: string[] = [];
  const added: string[] = [];
  for (const line of text.split("\n")) {
    const header = DIFF_FILE.exec(line);
    if (header !== null) {
      const name = (header[1] ?? header[2] ?? "").trim();
      inFile = name === path || name.endsWith(`/${path}`) || path.endsWith(`/${name}`);
      found ||= inFile;
      if (inFile && line.startsWith("*** Delete File:")) change.how = "delete";
      continue;
    }
    if (!inFile || line.startsWith("---") || line.startsWith("*** ")) continue;
    if (line.startsWith("@@")) {
      const context = line.replace(/^@@[^@]*@@\s?|^@@\s?/, "");
      change.symbols.push(...definitions([context]));
    } else if (line.startsWith("+")) added.push(line.slice(1));
    else if (line.startsWith("-")) removed.push(line.slice(1));
  }
  if (!found) return undefined;
  const diff = lineDiff(removed.filter(meaningful), added.filter(meaningful));
  change.added = diff.added.length;
  change.removed = diff.removed.length;
  change.symbols = [...new Set([...change.symbols, ...definitions([...removed, ...added])])];
  setFirstChange(change, diff);
  return change;
}

/**
 * Definitions (functions, classes, modules, types) named by `lines`, as
 * `keyword name`: Python, JavaScript/TypeScript, Go, Rust, Elixir, Ruby,
 * Pony, C-family types. Function bodies in C are not recognised.
 */
export function definitions(lines: readonly string[]): string[] {
  const found: string[] = [];
  for (const line of lines) {
    if (line.length > 300) continue;
    const match = DEFINITION.exec(line);
    if (match === null) continue;
    found.push(`${match[1] ?? ""} ${match[2] ?? ""}`);
    if (found.length >= 12) break;
  }
  return [...new Set(found)];
}

const DEFINITION =
  /^\s*(?:export\s+)?(?:default\s+)?(?:(?:pub(?:\([a-z]+\))?|public|private|protected|static|async|abstract|final|override|inline|unsafe)\s+)*(def|defp|defmacro|defmacrop|defmodule|defprotocol|defimpl|function\*?|func|fn|fun|class|interface|struct|enum|trait|impl|module|type|actor|primitive)\s+(?:\([^)]{0,80}\)\s*)?([A-Za-z_$][\w$.?!]{0,80})/;

/** Lines of a text, without a trailing empty line. */
function contentLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function meaningful(line: string): boolean {
  return line.trim() !== "";
}

/** Lines only in `before` (removed) and only in `after` (added), counted as multisets of trimmed lines. */
function lineDiff(
  before: readonly string[],
  after: readonly string[],
): { added: string[]; removed: string[] } {
  const counts = new Map<string, number>();
  for (const line of before) counts.set(line.trim(), (counts.get(line.trim()) ?? 0) + 1);
  const added: string[] = [];
  for (const line of after) {
    const left = counts.get(line.trim()) ?? 0;
    if (left > 0) counts.set(line.trim(), left - 1);
    else added.push(line);
  }
  const removed: string[] = [];
  for (const line of before) {
    const left = counts.get(line.trim()) ?? 0;
    if (left > 0) {
      counts.set(line.trim(), left - 1);
      removed.push(line);
    }
  }
  return { added, removed };
}

const MAX_SIDE = 60;

/** The first removed and the first added line of a change, clipped (either may be missing). */
function setFirstChange(change: FileChange, diff: { added: string[]; removed: string[] }): void {
  const before = diff.removed[0];
  const after = diff.added[0];
  if (before !== undefined) change.before = clip(before);
  if (after !== undefined) change.after = clip(after);
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= MAX_SIDE ? flat : `${flat.slice(0, MAX_SIDE - 1)}…`;
}

function firstLine(command: string): string {
  return (command.trim().split("\n")[0] ?? "").replace(/\s+/g, " ");
}
