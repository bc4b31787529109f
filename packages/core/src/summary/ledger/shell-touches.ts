/**
 * @module summary/ledger/shell-touches
 * The files a shell command or a patch reads or modifies: `cat`, `head`,
 * `sed -i`, `tee`, `>`/`>>`, `cp`, `mv`, `rm`, `touch`, `git checkout --`,
 * `git diff` and the like, read with a small linear shell lexer (here-doc
 * bodies left out); Codex `apply_patch` blocks (`*** Update File:`); and
 * unified diffs fed to `git apply`/`patch`.
 */

export interface FileTouch {
  path: string;
  kind: "read" | "modified";
}

const APPLY_PATCH_FILE = /^\*\*\* (?:(Update|Add|Delete) File|Move to): (.+)$/gm;
const DIFF_TARGET = /^\+\+\+ b\/(\S+)/gm;

/** Files named by `*** Update File:` blocks, and by `+++ b/x` lines when the diff is applied. */
export function patchTouches(text: string, applied: boolean): FileTouch[] {
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
