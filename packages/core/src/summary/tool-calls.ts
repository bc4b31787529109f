/**
 * @module summary/tool-calls
 * What a tool call did, read from its name and arguments: the files it read
 * or modified, whether it ran a shell command and which. The ledger records
 * the files; the deterministic summary lists the commands and their outcomes.
 *
 * Files are recognized for the tools agents use: Claude Code (`Read`, `Edit`,
 * `Write`, `MultiEdit`, `NotebookEdit`, `Bash`), OpenHands
 * (`str_replace_editor`, `execute_bash`), SWE-agent (`open`, `create`, `edit`
 * on the open file), mini-swe-agent and other shells (`bash`, `shell`, ...
 * with `cat`, `head`, `sed -i`, `tee`, `>`/`>>`, `cp`, `mv`, `rm`, `touch`,
 * `git checkout --`, `git diff`), Codex `apply_patch` (`*** Update File:`),
 * unified diffs fed to `git apply`/`patch`, and common
 * `read_file`/`write_file`/`edit_file` tools by name.
 */

import { toolCallName } from "../messages/content.js";
import type { ToolCall } from "../messages/types.js";

/** Parsed arguments by call, with the text they were parsed from: several rules read one call. */
const parsedArguments = new WeakMap<
  ToolCall,
  { text: string; args: Readonly<Record<string, unknown>> }
>();

/** Parsed tool-call arguments: an object, or `{}` when they are not a JSON object. */
export function parseArguments(call: ToolCall): Readonly<Record<string, unknown>> {
  // A custom tool's input is free text: no arguments to read.
  if (call.type === "custom") return {};
  const text = call.function.arguments;
  const known = parsedArguments.get(call);
  if (known !== undefined && known.text === text) return known.args;
  let args: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) args = parsed;
  } catch {
    // Not JSON: no arguments to read.
  }
  parsedArguments.set(call, { text, args });
  return args;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every string value in the arguments (keys left out), or the raw text when they are not JSON. */
export function argumentText(call: ToolCall): string {
  if (call.type === "custom") return call.custom.input;
  let parsed: unknown;
  try {
    parsed = JSON.parse(call.function.arguments);
  } catch {
    return call.function.arguments;
  }
  const strings: string[] = [];
  collectStrings(parsed, strings, 0);
  return strings.join("\n");
}

function collectStrings(value: unknown, out: string[], depth: number): void {
  if (depth > 20) return;
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out, depth + 1);
  else if (isRecord(value))
    for (const item of Object.values(value)) collectStrings(item, out, depth + 1);
}

/** `mcp__fs__read_file` → `read_file`, `functions.Bash` → `bash`. */
export function toolName(call: ToolCall): string {
  const name = toolCallName(call).toLowerCase();
  const parts = name.split(/__|\./);
  return parts[parts.length - 1] ?? name;
}

const SHELL_TOOLS = new Set([
  "bash",
  "execute_bash",
  "shell",
  "sh",
  "zsh",
  "run_shell_command",
  "exec_command",
  "execute_command",
  "run_command",
  "run_terminal_cmd",
  "terminal",
  "local_shell",
  "exec",
  "cmd",
  "powershell",
]);
const READ_TOOLS = new Set([
  "read",
  "read_file",
  "readfile",
  "view",
  "view_file",
  "open_file",
  "cat",
  "get_file",
  "file_read",
  "read_many_files",
  "notebookread",
  "read_notebook",
]);
const WRITE_TOOLS = new Set([
  "write",
  "write_file",
  "writefile",
  "write_to_file",
  "create_file",
  "edit",
  "edit_file",
  "multiedit",
  "multi_edit",
  "notebookedit",
  "notebook_edit",
  "str_replace",
  "replace",
  "replace_in_file",
  "search_replace",
  "insert",
  "apply_diff",
  "delete_file",
  "remove_file",
  "rename_file",
  "move_file",
]);
const EDITOR_TOOLS = new Set([
  "str_replace_editor",
  "str_replace_based_edit_tool",
  "text_editor",
  "edit_tool",
]);
const PATCH_TOOLS = new Set(["apply_patch", "applypatch", "patch"]);
/** SWE-agent interface commands whose arguments are `{ "command": "<name> <args>" }`. */
const SWE_AGENT_COMMANDS = new Set(["open", "create", "edit", "goto", "scroll_up", "scroll_down"]);
const PATH_KEYS = [
  "file_path",
  "path",
  "filepath",
  "file",
  "filename",
  "target_file",
  "notebook_path",
  "absolute_path",
  "relative_path",
  "target",
];
const PATH_LIST_KEYS = ["paths", "files", "file_paths"];

/** SWE-agent edits apply to the file that `open`/`create` made current. */
export interface EditorState {
  currentFile?: string;
}

export interface FileTouch {
  path: string;
  kind: "read" | "modified";
}

/**
 * Which kind of tool a call is: a SWE-agent interface command (`open`, `edit`
 * on the open file), a shell, a patch tool, a file editor with a `command`
 * argument (`str_replace_editor`), a tool that reads or writes files (by its
 * name), or another tool.
 */
export type ToolFamily = "swe-agent" | "shell" | "patch" | "editor" | "read" | "write" | "other";

export function toolFamily(call: ToolCall): ToolFamily {
  const name = toolName(call);
  if (SWE_AGENT_COMMANDS.has(name) && shellCommandOf(call)?.trimStart().startsWith(name))
    return "swe-agent";
  if (SHELL_TOOLS.has(name)) return "shell";
  if (PATCH_TOOLS.has(name)) return "patch";
  if (EDITOR_TOOLS.has(name)) return "editor";
  if (READ_TOOLS.has(name)) return "read";
  if (WRITE_TOOLS.has(name)) return "write";
  if (
    /write|edit|create|replace|insert|patch|delete|remove|rename|move|save|append|update/.test(name)
  )
    return "write";
  if (/read|view|open|cat|show|load|inspect/.test(name)) return "read";
  return "other";
}

/** Files a tool call reads or modifies, as far as its name and arguments tell. */
export function filesTouched(call: ToolCall, editor: EditorState = {}): FileTouch[] {
  const args = parseArguments(call);
  const command = shellCommandOf(call);
  switch (toolFamily(call)) {
    case "swe-agent":
      return command === undefined ? [] : sweAgentTouches(toolName(call), command, editor);
    case "shell":
      return command === undefined ? [] : shellTouches(command);
    case "patch":
      return patchTouches(argumentText(call), true);
    case "editor": {
      const path = pathArgument(args);
      if (path === undefined) return [];
      return [{ path, kind: args.command === "view" ? "read" : "modified" }];
    }
    case "read":
      return pathArguments(args).map((path) => ({ path, kind: "read" }));
    case "write":
      return pathArguments(args).map((path) => ({ path, kind: "modified" }));
    case "other":
      return [];
  }
}

/** Whether the call runs a shell command (`bash`, `execute_bash`, `shell`, ...). */
export function isShellCall(call: ToolCall): boolean {
  return SHELL_TOOLS.has(toolName(call)) && shellCommandOf(call) !== undefined;
}

/** The shell command of a shell-like call (`command` or `cmd`, a string or an argv array). */
export function shellCommandOf(call: ToolCall): string | undefined {
  const args = parseArguments(call);
  const value = args.command ?? args.cmd ?? args.script;
  if (typeof value === "string") return value;
  if (Array.isArray(value) && value.every((item) => typeof item === "string")) {
    // Codex: ["bash", "-lc", "<script>"].
    const argv = value as string[];
    const last = argv[argv.length - 1] ?? "";
    if (argv.length >= 3 && /^(?:ba|z)?sh$/.test(argv[0] ?? "") && /^-\w*c$/.test(argv[1] ?? ""))
      return last;
    return argv.join(" ");
  }
  return undefined;
}

function pathArgument(args: Record<string, unknown>): string | undefined {
  for (const key of PATH_KEYS) {
    const value = args[key];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return undefined;
}

function pathArguments(args: Record<string, unknown>): string[] {
  const single = pathArgument(args);
  const paths = single === undefined ? [] : [single];
  for (const key of PATH_LIST_KEYS) {
    const value = args[key];
    if (!Array.isArray(value)) continue;
    for (const item of value) {
      if (typeof item === "string" && item.trim() !== "") paths.push(item.trim());
      else if (isRecord(item)) {
        const nested = pathArgument(item);
        if (nested !== undefined) paths.push(nested);
      }
    }
  }
  return paths;
}

function sweAgentTouches(name: string, command: string, editor: EditorState): FileTouch[] {
  const firstLine = command.trim().split("\n")[0] ?? "";
  const words = firstLine.split(/\s+/).slice(1);
  const target = words[0]?.replace(/^["']|["']$/g, "");
  if (name === "open" && target) {
    editor.currentFile = target;
    return [{ path: target, kind: "read" }];
  }
  if (name === "create" && target) {
    editor.currentFile = target;
    return [{ path: target, kind: "modified" }];
  }
  if (name === "edit" && editor.currentFile !== undefined)
    return [{ path: editor.currentFile, kind: "modified" }];
  return [];
}

const APPLY_PATCH_FILE = /^\*\*\* (?:(Update|Add|Delete) File|Move to): (.+)$/gm;
const DIFF_TARGET = /^\+\+\+ b\/(\S+)/gm;

/** Files named by `*** Update File:` blocks, and by `+++ b/x` lines when the diff is applied. */
function patchTouches(text: string, applied: boolean): FileTouch[] {
  const touches: FileTouch[] = [];
  for (const match of text.matchAll(APPLY_PATCH_FILE)) {
    const path = match[2]?.trim();
    if (path) touches.push({ path, kind: "modified" });
  }
  if (applied) {
    for (const match of text.matchAll(DIFF_TARGET)) {
      const path = match[1];
      if (path && path !== "/dev/null") touches.push({ path, kind: "modified" });
    }
  }
  return touches;
}

/** Files a shell command reads or modifies (see the module documentation for the commands recognized). */
export function shellTouches(command: string): FileTouch[] {
  const applied = /\bgit apply\b|\bpatch\s+-p/.test(command);
  const touches = patchTouches(command, applied);
  // A loop, not push(...spread): a command can have a huge number of operands.
  for (const simple of parseShell(stripHeredocs(command)))
    for (const touch of simpleCommandTouches(simple)) touches.push(touch);
  return touches;
}

/** Drops here-document bodies: they are file contents or input, not commands. */
function stripHeredocs(command: string): string {
  if (!command.includes("<<")) return command;
  const out: string[] = [];
  const pending: { delimiter: string; dash: boolean }[] = [];
  for (const line of command.split("\n")) {
    const current = pending[0];
    if (current !== undefined) {
      if (
        (current.dash ? line.trim() : line) === current.delimiter ||
        line.trim() === current.delimiter
      )
        pending.shift();
      continue;
    }
    out.push(line);
    // `(?<!<)` and `(?!<)`: `<<<` is a here-string, not a here-doc.
    for (const match of line.matchAll(/(?<!<)<<(?!<)(-?)[ \t]*(['"]?)([A-Za-z_][\w.-]*)\2/g)) {
      const delimiter = match[3];
      if (delimiter !== undefined) pending.push({ delimiter, dash: match[1] === "-" });
    }
  }
  return out.join("\n");
}

interface SimpleCommand {
  words: string[];
  redirects: { op: string; target: string }[];
}

/**
 * A small, linear shell lexer: quotes, backslashes, `;`, `&&`, `||`, `|`,
 * `&`, newlines, parentheses, and redirections (`>`, `>>`, `<`, `2>`, `&>`;
 * `<<` here-doc delimiters are skipped). Enough to find file arguments, not a
 * full shell parser.
 */
function parseShell(script: string): SimpleCommand[] {
  const commands: SimpleCommand[] = [];
  let current: SimpleCommand = { words: [], redirects: [] };
  let word = "";
  let inWord = false;
  let pendingRedirect: string | undefined;

  const endWord = (): void => {
    if (!inWord) return;
    if (pendingRedirect !== undefined) {
      current.redirects.push({ op: pendingRedirect, target: word });
      pendingRedirect = undefined;
    } else {
      current.words.push(word);
    }
    word = "";
    inWord = false;
  };
  const endCommand = (): void => {
    endWord();
    pendingRedirect = undefined;
    if (current.words.length > 0 || current.redirects.length > 0) commands.push(current);
    current = { words: [], redirects: [] };
  };

  let i = 0;
  while (i < script.length) {
    const ch = script.charAt(i);
    if (ch === "'") {
      const close = script.indexOf("'", i + 1);
      const end = close === -1 ? script.length : close;
      word += script.slice(i + 1, end);
      inWord = true;
      i = end + 1;
      continue;
    }
    if (ch === '"') {
      i++;
      inWord = true;
      while (i < script.length && script.charAt(i) !== '"') {
        if (script.charAt(i) === "\\" && i + 1 < script.length) i++;
        word += script.charAt(i);
        i++;
      }
      i++;
      continue;
    }
    if (ch === "\\") {
      if (script.charAt(i + 1) !== "\n") word += script.charAt(i + 1);
      inWord = inWord || script.charAt(i + 1) !== "\n";
      i += 2;
      continue;
    }
    if (ch === " " || ch === "\t") {
      endWord();
      i++;
      continue;
    }
    if (ch === "\n" || ch === ";" || ch === "|" || ch === "(" || ch === ")") {
      endCommand();
      i++;
      continue;
    }
    if (ch === "&") {
      if (script.charAt(i + 1) === ">") {
        endWord();
        const append = script.charAt(i + 2) === ">";
        pendingRedirect = append ? ">>" : ">";
        i += append ? 3 : 2;
        continue;
      }
      endCommand();
      i += script.charAt(i + 1) === "&" ? 2 : 1;
      continue;
    }
    if (ch === ">" || ch === "<") {
      // A word made only of digits right before is a file descriptor (`2>`).
      if (inWord && /^\d+$/.test(word)) {
        word = "";
        inWord = false;
      } else {
        endWord();
      }
      if (ch === "<" && script.charAt(i + 1) === "<") {
        // Here-doc or here-string: the next word is a delimiter or data, not a file.
        pendingRedirect = "<<";
        i += script.charAt(i + 2) === "<" ? 3 : 2;
        if (script.charAt(i) === "-") i++;
        continue;
      }
      const append = ch === ">" && script.charAt(i + 1) === ">";
      pendingRedirect = append ? ">>" : ch;
      i += append ? 2 : 1;
      // `>&2`, `<&0`: duplicating a descriptor, not a file.
      if (script.charAt(i) === "&") {
        pendingRedirect = undefined;
        i++;
        while (i < script.length && /[\d-]/.test(script.charAt(i))) i++;
      }
      continue;
    }
    word += ch;
    inWord = true;
    i++;
  }
  endCommand();
  return commands;
}

const COMMAND_PREFIXES = new Set([
  "sudo",
  "env",
  "time",
  "command",
  "exec",
  "nohup",
  "nice",
  "xargs",
]);
const READ_COMMANDS = new Set([
  "cat",
  "head",
  "tail",
  "less",
  "more",
  "bat",
  "batcat",
  "nl",
  "view",
  "tac",
]);
/** Options of `head`/`tail` that take a value. */
const VALUE_OPTIONS = new Set(["-n", "-c", "--lines", "--bytes"]);

function simpleCommandTouches(command: SimpleCommand): FileTouch[] {
  const touches: FileTouch[] = [];
  for (const redirect of command.redirects) {
    if (redirect.op === "<<" || !looksLikeFile(redirect.target)) continue;
    touches.push({ path: redirect.target, kind: redirect.op === "<" ? "read" : "modified" });
  }
  let words = command.words;
  while (words.length > 0) {
    const first = words[0] ?? "";
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(first) || COMMAND_PREFIXES.has(first))
      words = words.slice(1);
    else if (first === "timeout") words = words.slice(2);
    else break;
  }
  const program = (words[0] ?? "").split("/").pop() ?? "";
  const args = words.slice(1);
  const files = (list: readonly string[], kind: FileTouch["kind"]): void => {
    for (const arg of list) if (looksLikeFile(arg)) touches.push({ path: arg, kind });
  };

  if (READ_COMMANDS.has(program)) {
    files(operands(args, VALUE_OPTIONS), "read");
  } else if (program === "sed" || program === "perl") {
    const inPlace = args.some((arg) => /^-[A-Za-z]*i/.test(arg) || arg.startsWith("--in-place"));
    const hasScriptOption = args.some(
      (arg) => arg === "-e" || arg === "-f" || /^-[A-Za-z]*e$/.test(arg),
    );
    const rest = operands(args, new Set(["-e", "-f"]));
    // Without -e/-f the first operand is the script.
    files(hasScriptOption ? rest : rest.slice(1), inPlace ? "modified" : "read");
  } else if (program === "tee" || program === "touch" || program === "rm" || program === "sponge") {
    files(operands(args, new Set()), "modified");
  } else if (program === "cp") {
    const list = operands(args, new Set(["-t"]));
    files(list.slice(-1), "modified");
  } else if (program === "mv") {
    files(operands(args, new Set(["-t"])), "modified");
  } else if (program === "git") {
    for (const touch of gitTouches(args)) touches.push(touch);
  } else if (program === "apply_patch") {
    // Body already handled by patchTouches (here-doc text is scanned before stripping).
  }
  return touches;
}

/** Non-option arguments; options in `withValue` consume the next argument. Stops treating `-x` as options after `--`. */
function operands(args: readonly string[], withValue: ReadonlySet<string>): string[] {
  const out: string[] = [];
  let optionsEnded = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    if (!optionsEnded && arg === "--") {
      optionsEnded = true;
      continue;
    }
    if (!optionsEnded && arg.startsWith("-") && arg.length > 1) {
      if (withValue.has(arg)) i++;
      continue;
    }
    out.push(arg);
  }
  return out;
}

function gitTouches(args: readonly string[]): FileTouch[] {
  const sub = args[0];
  const rest = args.slice(1);
  const separator = rest.indexOf("--");
  const afterSeparator = separator >= 0 ? rest.slice(separator + 1) : [];
  const pathLike = (list: readonly string[]): string[] =>
    list.filter((arg) => !arg.startsWith("-") && looksLikeFile(arg) && /[./]/.test(arg));
  if (sub === "checkout" || sub === "restore") {
    const list = sub === "restore" ? operands(rest, new Set(["-s", "--source"])) : afterSeparator;
    return pathLike(list).map((path) => ({ path, kind: "modified" }));
  }
  if (sub === "rm" || sub === "mv")
    return pathLike(operands(rest, new Set())).map((path) => ({ path, kind: "modified" }));
  if (sub === "diff" || sub === "show" || sub === "log" || sub === "blame") {
    const list =
      separator >= 0
        ? afterSeparator
        : sub === "diff" || sub === "blame"
          ? operands(rest, new Set())
          : [];
    return pathLike(list).map((path) => ({ path, kind: "read" }));
  }
  return [];
}

/** A plain file operand: no globs, variables, substitutions or device files. */
function looksLikeFile(arg: string): boolean {
  if (arg.length === 0 || arg.length > 500) return false;
  if (/[*?[\]{}$`\s]/.test(arg) || arg.startsWith("-") || arg.startsWith("&")) return false;
  if (/^\d+$/.test(arg) || arg.startsWith("/dev/") || arg.startsWith("/proc/")) return false;
  return true;
}
