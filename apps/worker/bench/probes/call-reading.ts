/**
 * @module bench/probes/call-reading
 * The probe bench's own reading of a transcript's tool calls, written apart from the engine's
 * (`summary/`) so that the bench does not grade the summarizer by its own rules: each call with
 * its result, whether it failed, the shell command it ran, the test or build step it is, the
 * files it modified and how (the changed lines and the definitions they touch), and the error
 * signatures its output names (the line that says what broke). It covers the corpus's agents:
 * Claude Code (`Edit`, `MultiEdit`, `Write`, `Bash`), OpenHands (`str_replace_editor`,
 * `execute_bash`), SWE-agent (`open`, `create`, `edit N:M`, `bash`) and mini-swe-agent (`bash`:
 * `sed -i`, here-documents, redirections).
 */

import type { ChatMessage, ToolCall } from "@condense/core";
import { messageText, toolCallInput, toolCallName } from "@condense/core";

export interface FileEdit {
  path: string;
  /** Lines the change added and removed (trimmed, not blank), in order. */
  added: string[];
  removed: string[];
  /** `keyword name` of the definitions the changed lines hold, else those of the text around them. */
  symbols: string[];
}

export interface ReadCall {
  id: string;
  name: string;
  /** Index of the assistant message that made the call. */
  index: number;
  command: string | undefined;
  result: string | undefined;
  failed: boolean;
  /** The test or build step the command runs (`python -m pytest tests/x.py`), if any. */
  step: string | undefined;
  edits: FileEdit[];
  signatures: string[];
  /** What a later success must repeat to resolve this call's failure. */
  resolution: string;
}

const SHELL_TOOLS = /^(?:bash|Bash|execute_bash|shell|run_shell_command|exec_command|terminal)$/;

function parseArguments(call: ToolCall): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(toolCallInput(call));
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" ? value : undefined;

/** Lines of a text that say something, trimmed. */
function meaningfulLines(value: string): string[] {
  return value
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

const DEFINITION =
  /^(?:export\s+)?(?:default\s+)?(?:(?:pub|public|private|protected|static|async)\s+)*(def|defp|defmacro|defmodule|class|function|fn|func|fun|interface|struct|enum|trait|impl|type|actor|primitive)\s+([A-Za-z_$][\w$.?!]*)/;

function definitionsIn(lines: readonly string[]): string[] {
  const found: string[] = [];
  for (const line of lines) {
    const match = DEFINITION.exec(line);
    if (match !== null) found.push(`${match[1]} ${match[2]}`);
  }
  return [...new Set(found)];
}

/** The lines only in `after` and only in `before` (as multisets). */
function changedLines(before: string, after: string): { added: string[]; removed: string[] } {
  const old = meaningfulLines(before);
  const now = meaningfulLines(after);
  const left = new Map<string, number>();
  for (const line of old) left.set(line, (left.get(line) ?? 0) + 1);
  const added: string[] = [];
  for (const line of now) {
    const count = left.get(line) ?? 0;
    if (count > 0) left.set(line, count - 1);
    else added.push(line);
  }
  const removed = old.filter((line) => {
    const count = left.get(line) ?? 0;
    if (count === 0) return false;
    left.set(line, count - 1);
    return true;
  });
  return { added, removed };
}

function editOf(path: string, before: string, after: string): FileEdit {
  const { added, removed } = changedLines(before, after);
  const symbols = definitionsIn([...removed, ...added]);
  return {
    path,
    added,
    removed,
    symbols: symbols.length > 0 ? symbols : definitionsIn(meaningfulLines(`${before}\n${after}`)),
  };
}

/** The files a shell command writes, and what it writes when the command shows it. */
function shellEdits(command: string): FileEdit[] {
  const edits: FileEdit[] = [];
  const lines = command.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    // A here-document written to a file: `cat > f.py << 'EOF'`, `cat <<EOF > f.py`.
    const here = /<<-?\s*(['"]?)([A-Za-z_][\w]*)\1/.exec(line);
    const target = /(?:^|[^\d&>])>>?\s*(['"]?)([^\s'"|;&<>]+)\1/.exec(line.replace(/2>&1/g, ""));
    if (here !== null && target !== null && !target[2]?.startsWith("/dev/")) {
      const end = lines.findIndex((candidate, j) => j > i && candidate.trim() === here[2]);
      const body = lines.slice(i + 1, end === -1 ? lines.length : end).join("\n");
      edits.push(editOf(target[2] ?? "", "", body));
      if (end !== -1) i = end;
      continue;
    }
    for (const step of line.split(/&&|;|\|\|/)) {
      const sed =
        /^\s*sed\s+(?:-[a-zA-Z]*i[a-zA-Z]*(?:\s+''|\s+"")?\s+)(?:-e\s+)?(['"])(.*?)\1\s+(\S+)\s*$/.exec(
          step,
        );
      if (sed !== null) {
        const substitution = /^s(.)(.*?)\1(.*?)\1/.exec(sed[2] ?? "");
        edits.push(
          editOf(
            (sed[3] ?? "").replace(/^['"]|['"]$/g, ""),
            substitution?.[2] ?? "",
            substitution?.[3] ?? "",
          ),
        );
        continue;
      }
      if (here !== null) continue;
      const redirect = /(?:^|[^\d&>])>>?\s*(['"]?)([^\s'"|;&<>]+)\1\s*$/.exec(
        step.replace(/2>&1/g, ""),
      );
      const path = redirect?.[2];
      if (path !== undefined && !path.startsWith("/dev/") && /\.\w+$/.test(path)) {
        const echoed = /^\s*(?:echo|printf)\s+(['"]?)(.*?)\1\s*>/.exec(step)?.[2] ?? "";
        edits.push(editOf(path, "", echoed));
      }
    }
  }
  return edits;
}

/** The files a call modifies, and how; `open` is the file SWE-agent has open (its `edit` changes it). */
function editsOf(
  call: ToolCall,
  args: Record<string, unknown>,
  open: { path?: string },
): FileEdit[] {
  const name = toolCallName(call);
  const path = text(args.file_path) ?? text(args.path) ?? text(args.notebook_path);
  if (/^(?:Edit|MultiEdit|Write|NotebookEdit|write_file|edit_file)$/.test(name) && path) {
    if (Array.isArray(args.edits)) {
      const olds: string[] = [];
      const news: string[] = [];
      for (const edit of args.edits) {
        const entry = (typeof edit === "object" && edit !== null ? edit : {}) as Record<
          string,
          unknown
        >;
        olds.push(text(entry.old_string) ?? "");
        news.push(text(entry.new_string) ?? "");
      }
      return [editOf(path, olds.join("\n"), news.join("\n"))];
    }
    const content = text(args.content) ?? text(args.new_source);
    if (content !== undefined) return [editOf(path, "", content)];
    return [editOf(path, text(args.old_string) ?? "", text(args.new_string) ?? "")];
  }
  if (name === "str_replace_editor" && path) {
    switch (args.command) {
      case "create":
        return [editOf(path, "", text(args.file_text) ?? "")];
      case "str_replace":
        return [editOf(path, text(args.old_str) ?? "", text(args.new_str) ?? "")];
      case "insert":
        return [editOf(path, "", text(args.new_str) ?? "")];
      default:
        return [];
    }
  }
  const command = text(args.command) ?? "";
  if (name === "open" || name === "create") {
    const file = /^\s*(?:open|create)\s+("[^"]+"|\S+)/.exec(command)?.[1]?.replace(/"/g, "");
    if (file !== undefined) open.path = file;
    return name === "create" && file !== undefined ? [editOf(file, "", "")] : [];
  }
  if (name === "edit" && open.path !== undefined) {
    const [, ...body] = command.split("\n");
    const end = body.findIndex((line) => line.trim() === "end_of_edit");
    return [editOf(open.path, "", (end === -1 ? body : body.slice(0, end)).join("\n"))];
  }
  if (SHELL_TOOLS.test(name)) return shellEdits(command);
  return [];
}

/** The exit code a result states, if any (mini-swe-agent, Claude Code, OpenHands, SWE-agent). */
function exitCode(result: string): number | undefined {
  const stated =
    /^\s*<returncode>(-?\d+)<\/returncode>/.exec(result) ??
    /^\s*Exit code:? (-?\d+)/.exec(result) ??
    /\[The command completed with exit code (-?\d+)\.\]/.exec(result.slice(-400));
  return stated === null ? undefined : Number(stated[1]);
}

const LOOKUP =
  /^\s*(?:cd\s+\S+\s*&&\s*)*(?:grep|rg|find|ls|cat|head|tail|sed -n|git (?:diff|status|log|show))\b/;

/** A lone command that only looks (its exit 1 means "nothing found"). */
const lookup = (command: string | undefined) =>
  command !== undefined && !/\n|>|<</.test(command.trim()) && LOOKUP.test(command);

/** Whether a call failed, by its stated exit code, else by what its output says. */
function failedCall(result: string | undefined, command: string | undefined): boolean {
  if (result === undefined) return false;
  const code = exitCode(result);
  if (code !== undefined) return code !== 0 && !(code === 1 && lookup(command));
  if (/^\s*(?:<tool_use_error>|Error:|ERROR:)/.test(result)) return true;
  if (/Your proposed edit has introduced new syntax error/.test(result)) return true;
  if (command === undefined || lookup(command)) return false;
  return /Traceback \(most recent call last\)|^\s*\*\* \(\w[\w.]*\)|^FAILED |^\s*\d+\) test /m.test(
    result,
  );
}

const MAX_SIGNATURE = 120;

function signature(line: string): string {
  const flat = line
    .replace(/0x[0-9a-f]{6,}/gi, "0x…")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length <= MAX_SIGNATURE ? flat : flat.slice(0, MAX_SIGNATURE);
}

/**
 * The lines of a failed output that say what broke: Elixir's `** (Type) message` (the outermost
 * and the innermost), ExUnit's failing test (`file.exs:N`), pytest's `FAILED id`, a Python
 * traceback's exception line, compiler codes (`error TS2345: …`, `error[E0308]: …`, flake8's
 * `E999 SyntaxError: …`, `file:line:col: error: …`); else the first error line.
 */
export function errorSignatures(result: string): string[] {
  const lines = result
    .split("\n", 5_000)
    .map((line) =>
      line.replace(/<returncode>-?\d+<\/returncode>|<\/?(?:output|returncode)>/g, "").trim(),
    );
  const found: string[] = [];
  const elixir = lines.filter((line) => /^\*\* \(\w[\w.]*\) \S/.test(line));
  if (elixir.length > 0) found.push(elixir[0] as string, elixir[elixir.length - 1] as string);
  lines.forEach((line, index) => {
    if (/^\d+\) test .+ \([\w.]+\)$/.test(line)) {
      const place = lines[index + 1] ?? "";
      if (/^\S+\.exs:\d+$/.test(place)) found.push(place);
    }
    const pytest = /^(?:FAILED|ERROR) (\S+::\S+)/.exec(line);
    if (pytest !== null) found.push(pytest[1] as string);
    const code =
      /\berror (TS\d+): .*/.exec(line)?.[0] ??
      /\berror\[E\d+\]: .*/.exec(line)?.[0] ??
      /\b[EFW]\d{3} \w+(?:Error|Warning): .*/.exec(line)?.[0] ??
      /^\S+:\d+:\d+: (?:fatal )?[Ee]rror: .*/.exec(line)?.[0];
    if (code !== undefined) found.push(code);
  });
  if (/Traceback \(most recent call last\)/.test(result)) {
    const exception = lines.findLast((line) =>
      /^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure)(?::|$)/.test(line),
    );
    if (exception !== undefined) found.push(exception);
  }
  if (found.length === 0) {
    const first = lines.find((line) =>
      /^(?:error|fatal|Error|ERROR)\b\W|command not found|No such file or directory|[Pp]ermission denied/.test(
        line,
      ),
    );
    if (first !== undefined) found.push(first);
  }
  // A signature says something: a dozen characters and two words at least (not `error ->`).
  const telling = (line: string) =>
    line.length >= 12 && (line.match(/[A-Za-z]{2,}/g)?.length ?? 0) >= 2;
  return [...new Set(found.map(signature).filter(telling))];
}

const TEST_OR_BUILD =
  /^(?:(?:\S+=\S+\s+)*)(?:python[\d.]*\s+(?:-m\s+(?:pytest|unittest)|\S*(?:test|reproduce|repro)\S*\.py)|pytest|py\.test|tox|mix\s+(?:test|compile)|(?:npm|pnpm|yarn)\s+(?:run\s+)?(?:test|build|typecheck)|npx\s+(?:vitest|jest|tsc)|cargo\s+(?:test|build|check)|go\s+(?:test|build)|make\b|ponyc\b|tsc\b)/;

/** The test or build step of a command: its step that runs one, pipes and redirections cut. */
export function testOrBuildStep(command: string): string | undefined {
  for (const line of command.split("\n").reverse()) {
    for (const part of line.split(/&&|;/).reverse()) {
      const step = (part.split(/\s\|\s?/)[0] ?? "")
        .replace(/\s*2>&1/g, "")
        .replace(/\s+/g, " ")
        .trim();
      if (TEST_OR_BUILD.test(step)) return step.slice(0, 120);
    }
  }
  return undefined;
}

/** Every tool call of `messages` with its result, in order. */
export function readCalls(messages: readonly ChatMessage[]): ReadCall[] {
  const results = new Map<string, string>();
  for (const message of messages)
    if (
      message.role === "tool" &&
      message.tool_call_id !== undefined &&
      !results.has(message.tool_call_id)
    )
      results.set(message.tool_call_id, messageText(message));
  const open: { path?: string } = {};
  const calls: ReadCall[] = [];
  messages.forEach((message, index) => {
    for (const call of message.role === "assistant" ? (message.tool_calls ?? []) : []) {
      const args = parseArguments(call);
      const name = toolCallName(call);
      const command = SHELL_TOOLS.test(name) ? text(args.command) : undefined;
      const result = results.get(call.id);
      const failed = failedCall(result, command);
      const edits = editsOf(call, args, open);
      const step = command === undefined ? undefined : testOrBuildStep(command);
      const last = command
        ?.trim()
        .split("\n")
        .at(-1)
        ?.replace(/^(?:\s*cd\s+\S+\s*&&)+/, "")
        .trim();
      calls.push({
        id: call.id,
        name,
        index,
        command,
        result,
        failed,
        step,
        edits,
        signatures: failed && result !== undefined ? errorSignatures(result) : [],
        resolution:
          step ??
          (last !== undefined
            ? `$ ${last}`
            : `${name} ${edits[0]?.path ?? text(args.path) ?? text(args.file_path) ?? ""}`),
      });
    }
  });
  return calls;
}
