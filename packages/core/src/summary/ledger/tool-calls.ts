/**
 * @module summary/ledger/tool-calls
 * What a tool call did, read from its name and arguments: the files it read
 * or modified, whether it ran a shell command and which. The ledger records
 * the files; the deterministic summary lists the commands and their outcomes.
 *
 * Files are recognized for the tools agents use: Claude Code (`Read`, `Edit`,
 * `Write`, `MultiEdit`, `NotebookEdit`, `Bash`), OpenHands
 * (`str_replace_editor`, `execute_bash`), SWE-agent (`open`, `create`, `edit`
 * on the open file), mini-swe-agent and other shells (`bash`, `shell`, ...;
 * their commands are read by `summary/ledger/shell-touches`), Codex `apply_patch`
 * (`*** Update File:`), and common `read_file`/`write_file`/`edit_file` tools
 * by name.
 */

import { toolCallName } from "../../messages/content.js";
import { isRecord } from "../../messages/input-checks.js";
import type { ToolCall } from "../../messages/types.js";
import { type FileTouch, patchTouches, shellTouches } from "./shell-touches.js";

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
