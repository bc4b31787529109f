/**
 * @module summary/ledger
 * What code remembers across compactions, independent of any model: the exact
 * identifiers of a range, the files it read and modified, and the user's
 * requests verbatim. Also the check that a summary carries every identifier,
 * and the repair that appends the missing ones.
 *
 * Sources: identifiers come from user and assistant text and from tool-call
 * arguments, plus every tool-call id of the range; never from tool outputs
 * (those are pruned and can be fetched back by their call id), nor from a
 * `<compacted-context>` block quoted in a message (not the engine's). Files come
 * from tool-call arguments only, by recognizing the tools agents use: Claude
 * Code (`Read`, `Edit`, `Write`, `MultiEdit`, `NotebookEdit`, `Bash`),
 * OpenHands (`str_replace_editor`, `execute_bash`), SWE-agent (`open`,
 * `create`, `edit` on the open file), mini-swe-agent and other shells
 * (`bash`, `shell`, ... with `cat`, `head`, `sed -i`, `tee`, `>`/`>>`, `cp`,
 * `mv`, `rm`, `touch`, `git checkout --`, `git diff`), Codex `apply_patch`
 * (`*** Update File:`), unified diffs fed to `git apply`/`patch`, and common
 * `read_file`/`write_file`/`edit_file` tools by name.
 */

import { messageText } from "../messages/content.js";
import type { ChatMessage, ToolCall } from "../messages/types.js";
import { extractIdentifiers, isToolCallId } from "./identifiers.js";
import type { Ledger } from "./ledger-types.js";
import {
  locateSection,
  REQUIRED_SECTIONS,
  SUMMARY_OPEN,
  withoutSummaryBlocks,
} from "./template.js";

/** Characters kept of each user request. */
export const REQUEST_CHAR_LIMIT = 1500;
/** Characters of user requests a ledger keeps in total (the first request always, then the latest ones). */
export const REQUESTS_TOTAL_LIMIT = 6000;
/** Appended to a request cut at REQUEST_CHAR_LIMIT. */
export const TRUNCATION_MARK = " […truncated]";

/**
 * The ledger of `messages`, merged after `previous` (carried forward from an
 * earlier compaction): previous entries first, duplicates dropped, order kept.
 */
export function buildLedger(messages: readonly ChatMessage[], previous?: Ledger): Ledger {
  const identifiers = new Set(previous?.identifiers ?? []);
  const read = new Set(previous?.files.read ?? []);
  const modified = new Set(previous?.files.modified ?? []);
  const requests: string[] = [...(previous?.userRequests ?? [])];
  const editor: EditorState = {};

  messages.forEach((message, index) => {
    // A marker block quoted in a message is not the engine's summary: nothing is taken from it.
    if (message.role === "user") {
      const text = withoutSummaryBlocks(messageText(message));
      const kind = classifyUserMessage(text, messages[index - 1]);
      if (kind !== "observation") addAll(identifiers, extractIdentifiers(text));
      if (kind === "request" && text.trim() !== "") requests.push(text.trim());
      return;
    }
    if (message.role === "assistant") {
      addAll(identifiers, extractIdentifiers(withoutSummaryBlocks(messageText(message))));
      for (const call of message.tool_calls ?? []) {
        if (call.id?.trim()) identifiers.add(call.id);
        addAll(identifiers, extractIdentifiers(argumentText(call)));
        for (const touch of filesTouched(call, editor)) {
          (touch.kind === "read" ? read : modified).add(touch.path);
        }
      }
      return;
    }
    if (message.role === "tool" && message.tool_call_id?.trim())
      identifiers.add(message.tool_call_id);
  });

  return {
    identifiers: [...identifiers],
    files: { read: [...read], modified: [...modified] },
    userRequests: selectRequests(requests),
  };
}

function addAll(set: Set<string>, values: readonly string[]): void {
  for (const value of values) set.add(value);
}

/** Trims each request and keeps the first one plus as many of the latest as fit the total budget. */
function selectRequests(all: readonly string[]): string[] {
  const unique = [...new Set(all.map(trimUserRequest))];
  const [first, ...rest] = unique;
  if (first === undefined) return [];
  let used = first.length;
  const latest: string[] = [];
  for (let i = rest.length - 1; i >= 0; i--) {
    const request = rest[i] ?? "";
    if (used + request.length > REQUESTS_TOTAL_LIMIT) break;
    used += request.length;
    latest.unshift(request);
  }
  return [first, ...latest];
}

/** A user request cut to REQUEST_CHAR_LIMIT characters plus a mark; idempotent. */
export function trimUserRequest(text: string): string {
  if (text.length <= REQUEST_CHAR_LIMIT) return text;
  return `${text.slice(0, REQUEST_CHAR_LIMIT)}${TRUNCATION_MARK}`;
}

export type UserMessageKind = "request" | "summary" | "observation" | "injected";

/** Prefixes of user-role messages that a harness wrote, not the user (Claude Code, SWE-agent, Codex). */
const INJECTED_PREFIXES = [
  "<task-notification>",
  "<local-command-caveat>",
  "<local-command-stdout>",
  "<local-command-stderr>",
  "<system-reminder>",
  "<environment_context>",
  "<user_instructions>",
  "[Request interrupted by user",
  "Base directory for this skill:",
  "Caveat: The messages below were generated by the user while running local commands",
  "Here is a demonstration of how to correctly accomplish this task",
];

const SUMMARY_PREFIXES = [
  SUMMARY_OPEN,
  "This session is being continued from a previous conversation",
];

/** Tool feedback that harnesses send with the user role (mini-swe-agent, OpenHands, SWE-agent). */
const OBSERVATION_PATTERN =
  /^(?:<returncode>|<output>|OBSERVATION:|Observation:|EXECUTION RESULT|Tool call error|ERROR:|Error:|Parameter '|Please always provide EXACTLY ONE action|Your (?:last )?(?:command|output) )/;

/**
 * What a user-role message is: the user's own `request`, a compaction
 * `summary`, a tool `observation` (an error/feedback line right after a tool
 * call), or text a harness `injected` (notifications, skill bodies, demos).
 */
export function classifyUserMessage(
  text: string,
  previous: ChatMessage | undefined,
): UserMessageKind {
  const start = text.trimStart();
  if (SUMMARY_PREFIXES.some((prefix) => start.startsWith(prefix))) return "summary";
  if (REQUIRED_SECTIONS.every((section) => locateSection(start, section) !== undefined))
    return "summary";
  if (INJECTED_PREFIXES.some((prefix) => start.startsWith(prefix))) return "injected";
  const afterTool =
    previous?.role === "tool" ||
    (previous?.role === "assistant" && (previous.tool_calls?.length ?? 0) > 0);
  if (afterTool && OBSERVATION_PATTERN.test(start)) return "observation";
  return "request";
}

/** Parsed tool-call arguments: an object, or `{}` when they are not a JSON object. */
export function parseArguments(call: ToolCall): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call.function.arguments);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every string value in the arguments (keys left out), or the raw text when they are not JSON. */
export function argumentText(call: ToolCall): string {
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
  const name = call.function.name.toLowerCase();
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

/** Files a tool call reads or modifies, as far as its name and arguments tell. */
export function filesTouched(call: ToolCall, editor: EditorState = {}): FileTouch[] {
  const name = toolName(call);
  const args = parseArguments(call);
  const command = shellCommandOf(call);

  if (SWE_AGENT_COMMANDS.has(name) && command?.trimStart().startsWith(name)) {
    return sweAgentTouches(name, command, editor);
  }
  if (SHELL_TOOLS.has(name)) return command === undefined ? [] : shellTouches(command);
  if (PATCH_TOOLS.has(name)) return patchTouches(argumentText(call), true);
  if (EDITOR_TOOLS.has(name)) {
    const path = pathArgument(args);
    if (path === undefined) return [];
    return [{ path, kind: args.command === "view" ? "read" : "modified" }];
  }
  const paths = pathArguments(args);
  if (READ_TOOLS.has(name)) return paths.map((path) => ({ path, kind: "read" }));
  if (WRITE_TOOLS.has(name)) return paths.map((path) => ({ path, kind: "modified" }));
  if (paths.length === 0) return [];
  if (
    /write|edit|create|replace|insert|patch|delete|remove|rename|move|save|append|update/.test(name)
  ) {
    return paths.map((path) => ({ path, kind: "modified" }));
  }
  if (/read|view|open|cat|show|load|inspect/.test(name))
    return paths.map((path) => ({ path, kind: "read" }));
  return [];
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

/**
 * The ledger's identifiers and files that do not appear verbatim (as
 * substrings) in `summary`, in ledger order; blank ones are ignored.
 */
export function missingIdentifiers(summary: string, ledger: Ledger): string[] {
  const all = new Set([...ledger.identifiers, ...ledger.files.modified, ...ledger.files.read]);
  const missing: string[] = [];
  for (const id of all) if (id.trim() !== "" && !summary.includes(id)) missing.push(id);
  return missing;
}

const IDENTIFIER_LINE_WIDTH = 100;
const EMPTY_BODY = /^(?:none|\(none(?: recorded)?\)|n\/a|-)\.?$/i;

/**
 * Adds `missing` to the summary's `Exact identifiers` section (creating it at
 * the end when absent) so every one appears verbatim. They are written plain,
 * not in backticks (an identifier may itself contain a backtick), as `- `
 * list lines of comma-separated identifiers about 100 characters wide: the
 * guarantee is that every identifier appears, so nothing is capped, and
 * packing keeps thousands of them compact. A lone `None` body is replaced.
 */
export function appendMissingIdentifiers(summary: string, missing: readonly string[]): string {
  const ids = missing.filter((id) => id.trim() !== "");
  if (ids.length === 0) return summary;
  const lines = packIdentifiers(ids);
  const location = locateSection(summary, "Exact identifiers");
  if (location === undefined) {
    const head = summary.trimEnd();
    return `${head}${head === "" ? "" : "\n\n"}## Exact identifiers\n${lines}\n`;
  }
  const body = summary.slice(location.bodyStart, location.end).trim();
  const before = EMPTY_BODY.test(body)
    ? summary.slice(0, location.bodyStart)
    : `${summary.slice(0, location.end).trimEnd()}\n`;
  const after = summary.slice(location.end);
  const headingNeedsNewline = before.endsWith("\n") ? "" : "\n";
  return `${before}${headingNeedsNewline}${lines}\n${after === "" ? "" : `\n${after}`}`;
}

/**
 * The summary with tool-call ids removed from its Exact identifiers section.
 * Every tool call adds a unique id, so carrying all of them from compaction to
 * compaction would grow the summary without bound; an id stays in the context
 * for the compaction that folded its call in and the next one, and a store
 * keeps its output by id after that.
 */
export function retireToolCallIds(summary: string): string {
  const location = locateSection(summary, "Exact identifiers");
  if (location === undefined) return summary;
  const body = summary
    .slice(location.bodyStart, location.end)
    .split("\n")
    .map((line) => {
      const bullet = /^\s*-\s+/.exec(line);
      if (bullet === null) return line;
      const kept = line
        .slice(bullet[0].length)
        .split(", ")
        .filter((item) => !isToolCallId(item.replace(/^`|`$/g, "").trim()));
      return kept.length === 0 ? undefined : `${bullet[0]}${kept.join(", ")}`;
    })
    .filter((line) => line !== undefined)
    .join("\n");
  return `${summary.slice(0, location.bodyStart)}${body}${summary.slice(location.end)}`;
}

/**
 * `- a, b, c` lines of about IDENTIFIER_LINE_WIDTH characters; a longer
 * identifier gets its own line. One with leading or trailing whitespace is
 * put in double quotes so trimming cannot cut it (it still appears verbatim).
 */
export function packIdentifiers(ids: readonly string[]): string {
  const lines: string[] = [];
  let line = "";
  for (const raw of ids) {
    const id = raw.trim() === raw ? raw : `"${raw}"`;
    if (line === "") line = id;
    else if (line.length + 2 + id.length <= IDENTIFIER_LINE_WIDTH) line += `, ${id}`;
    else {
      lines.push(`- ${line}`);
      line = id;
    }
  }
  if (line !== "") lines.push(`- ${line}`);
  return lines.join("\n");
}
