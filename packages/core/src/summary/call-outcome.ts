/**
 * @module summary/call-outcome
 * How a tool call ended, read from its result: ok, failed or still pending,
 * the exit code where the output states one (`<returncode>`, `Exit code N`),
 * failure signals for commands without one (`Traceback`, Elixir's `** (Error)`, `FAILED`, `error:`),
 * and the first useful error line (the exception line of a traceback). Exit 1
 * of a lone read-only command (`grep`, `find`) means "nothing found". The
 * deterministic summary quotes the error line as the command's output.
 */

import { errorSignatures } from "./error-signatures.js";

const MAX_ERROR_LINE = 200;

/** `text` on one line, at most MAX_ERROR_LINE characters. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= MAX_ERROR_LINE ? flat : `${flat.slice(0, MAX_ERROR_LINE - 1)}…`;
}

/** How one tool call ended, as its result tells (`pending`: no result yet). */
export interface CallOutcome {
  status: "ok" | "failed" | "pending";
  exitCode?: number;
  error?: string;
}

const EXIT_CODE_AT_START = /^\s*(?:<returncode>(-?\d+)<\/returncode>|Exit code:? (-?\d+))/;
const EXIT_CODE_ANYWHERE = /(?:exit code|exit status|exited with code)[:\s]+(-?\d+)/i;
const TRACEBACK = /Traceback \(most recent call last\)/;
const FAILURE_SIGNAL =
  /Traceback \(most recent call last\)|^\s*\*\* \([A-Z][\w.]*\) |^FAILED\b|\b[1-9]\d* (?:failed|errors?)\b|command not found|No such file or directory|^fatal:|^error(?:\[E\d+\])?:|^npm ERR!|\berror TS\d+|^panic:|Pre-commit validation failed|make: \*\*\*|Segmentation fault|^Error:|CMake Error/m;
const INSPECT_COMMANDS =
  /^(?:cat|head|tail|less|more|nl|grep|rg|ag|find|ls|tree|wc|echo|printf|pwd|which|file|stat|sed -n|git (?:status|log|diff|show|branch)|bd (?:show|list|ready))\b/;

/** Whether a call succeeded, from exit codes in its result or, for commands without one, failure signals. */
export function outcomeOf(result: string | undefined, command: string | undefined): CallOutcome {
  if (result === undefined) return { status: "pending" };
  // Results can be megabytes; status lines sit at the ends.
  const window =
    result.length > 24_000 ? `${result.slice(0, 16_000)}\n${result.slice(-8_000)}` : result;
  const start = EXIT_CODE_AT_START.exec(window);
  const code = start?.[1] ?? start?.[2] ?? EXIT_CODE_ANYWHERE.exec(window.slice(-600))?.[1];
  const inspecting = command !== undefined && isInspection(command);
  let failed: boolean;
  if (code !== undefined && inspecting && Number(code) === 1) {
    // `grep`/`find` exit 1 means "nothing found", not a failure.
    failed = false;
  } else if (code !== undefined) {
    // A pipe (`python x.py | tail`) hides the exit code of a crash; the traceback does not.
    failed = Number(code) !== 0 || (command !== undefined && !inspecting && TRACEBACK.test(window));
  } else if (/^\s*(?:<tool_use_error>|ERROR:|Error:)/.test(window)) {
    failed = true;
  } else {
    failed = command !== undefined && !inspecting && FAILURE_SIGNAL.test(window);
  }
  const outcome: CallOutcome = { status: failed ? "failed" : "ok" };
  if (code !== undefined) outcome.exitCode = Number(code);
  if (failed) {
    const error = errorLine(window);
    if (error !== undefined) outcome.error = error;
  }
  return outcome;
}

/** A single read-only command (`grep x f | head`), after any `cd dir &&`: no chains, no writes. */
export function isInspection(command: string): boolean {
  const rest = command
    .trim()
    .replace(/^(?:cd\s+\S+\s*(?:&&|;)\s*)+/, "")
    // Quoted text (`grep "a > b"`) holds no operators.
    .replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "''");
  if (/\n|&&|\|\||;/.test(rest)) return false;
  if (/(?:^|[^\d&])>{1,2}\s*(?!&|\/dev\/null)\S/.test(rest)) return false;
  return INSPECT_COMMANDS.test(rest);
}

const ERROR_WORDS =
  /error|failed|failure|fatal|exception|not found|no such file|cannot|can't|denied|panic|segmentation|invalid|undefined|refused|timed? ?out/i;
const EXCEPTION_LINE = /^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure)\b/;
const NOISE_LINE = /^(?:Exit code:? -?\d+|<\/?(?:returncode|output|tool_use_error)>.*|-+|=+)$/;

/**
 * The most useful line of an error: its first signature (`summary/error-signatures`: the
 * `** (RuntimeError)` line of an ExUnit failure, a traceback's exception line, a compiler code),
 * else the first line that names an error.
 */
function errorLine(text: string): string | undefined {
  const signature = errorSignatures(text)[0];
  if (signature !== undefined) return oneLine(signature);
  const lines = text
    .split("\n", 2000)
    .map((line) =>
      line
        .replace(/<returncode>-?\d+<\/returncode>/g, "")
        .replace(/<\/?(?:returncode|output|tool_use_error)>/g, "")
        .trim(),
    )
    .filter((line) => line !== "" && !NOISE_LINE.test(line));
  let chosen: string | undefined;
  if (TRACEBACK.test(text)) {
    for (const line of lines) if (EXCEPTION_LINE.test(line)) chosen = line;
  }
  if (chosen === undefined) {
    const at = lines.findIndex((line) => ERROR_WORDS.test(line));
    const index = at === -1 ? 0 : at;
    chosen = lines[index];
    // A bare `ERROR:` label says nothing; the message is on the next line.
    if (chosen !== undefined && /^[A-Za-z]*:$/.test(chosen) && lines[index + 1] !== undefined) {
      chosen = `${chosen} ${lines[index + 1]}`;
    }
  }
  return chosen === undefined ? undefined : oneLine(chosen);
}

/** Runs that test a change (the test scripts agents write count: `python reproduce.py`). */
const TEST_RUN =
  /(?:^|\s|\/)(?:pytest|py\.test|tox|nox|nosetests|runtests\.py|(?:mix|npm|pnpm|yarn|bun|cargo|go|swift|dotnet|rake)(?: run)? test|npx (?:vitest|jest|mocha)|vitest|jest|mocha|ctest|rspec|phpunit|make (?:test|check)|python[\d.]* (?:-m (?:pytest|unittest)|\S*(?:test|repro|reproduce|check|verify)\S*\.py))/;
/** Runs that build or check it without tests: compilers, linters, type checkers. */
const BUILD_RUN =
  /(?:^|\s|\/)(?:mix (?:compile|credo|format --check)|(?:npm|pnpm|yarn|bun)(?: run)? (?:build|check|lint|typecheck)|npx tsc|tsc\b|cargo (?:build|check|clippy)|go (?:build|vet)|make\b|cmake --build|gradle|mvn|dotnet build|swift build|ponyc)/;

/** A test, build or check run: its kind and the step of the command that runs it. */
export interface CommandRun {
  kind: "test" | "build";
  step: string;
}

/**
 * Whether a command runs tests, builds or checks (its last step, else its first line, each
 * after any `cd dir &&`): the runs whose outcome says whether a change works.
 */
export function commandRun(command: string): CommandRun | undefined {
  const lines = command.trim().split("\n");
  const steps = [lines[lines.length - 1] ?? "", lines[0] ?? ""].map((line) =>
    line.trim().replace(/^(?:cd\s+\S+\s*(?:&&|;)\s*)+/, ""),
  );
  for (const [kind, pattern] of [
    ["test", TEST_RUN],
    ["build", BUILD_RUN],
  ] as const) {
    // Quoted text (`git commit -m "make tests pass"`) runs nothing.
    const step = steps.find((candidate) =>
      pattern.test(candidate.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "''")),
    );
    if (step !== undefined) return { kind, step };
  }
  return undefined;
}

const COUNT =
  /\b(\d{1,7}) (passed|failed|failures?|errors?|skipped|xfailed|xpassed|deselected|tests?|examples?|passing|failing|pending|warnings?)\b/gi;
const UNITTEST_COUNT = /\b(failures|errors|skipped)=(\d{1,7})\b/g;

/**
 * The counts a test run's output ends with (`9 passed, 1 failed`, `43 tests, 0 failures`,
 * `2 failures`), from the last line near the end that has any; undefined when none does. Only
 * the numbers and a fixed vocabulary are taken, never other text of the output.
 */
export function testCounts(result: string): string | undefined {
  const lines = result.slice(-6000).split("\n");
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - 80); i--) {
    const line = lines[i] ?? "";
    const counts: string[] = [];
    for (const match of line.matchAll(COUNT))
      counts.push(`${match[1]} ${(match[2] ?? "").toLowerCase()}`);
    for (const match of line.matchAll(UNITTEST_COUNT)) counts.push(`${match[2]} ${match[1]}`);
    if (counts.length > 0) return [...new Set(counts)].slice(0, 5).join(", ");
  }
  return undefined;
}

/**
 * What a later success must repeat to resolve a failure: for a command its last step without
 * `cd dir &&` (a script written by a here-doc and then run fails or passes with its run), the
 * bodies of here-documents and lines without a word (`)"`) left out; for another tool the tool
 * and its file (`Edit lib/x.ex`).
 */
export function stepKey(call: { command?: string; name: string; target?: string }): string {
  if (call.command === undefined) return `${call.name} ${call.target ?? ""}`.trim();
  const steps: string[] = [];
  let closing: string | undefined;
  // A quoted argument over several lines (a commit message) is one argument, not steps.
  const command = call.command
    .trim()
    .replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, (quoted) =>
      quoted.includes("\n") ? `${quoted[0]}…${quoted[0]}` : quoted,
    );
  for (const line of command.split("\n")) {
    if (closing !== undefined) {
      if (line.trim() === closing) closing = undefined;
      continue;
    }
    closing = /<<-?\s*(['"]?)([A-Za-z_]\w*)\1/.exec(line)?.[2];
    if (/[A-Za-z]{2}/.test(line)) steps.push(line);
  }
  const last = (steps[steps.length - 1] ?? "")
    .trim()
    .replace(/^(?:cd\s+\S+\s*(?:&&|;)\s*)+/, "")
    // Output shaping is not part of the step: `| tail -50` and `| tail -30` run the same thing.
    .replace(/(?:\s*\|\s*(?:tail|head)(?:\s+-n)?(?:\s+-?\d+)?)+\s*$/, "")
    .replace(/\s+2>&1/g, "");
  return `$ ${last.replace(/\s+/g, " ").trim()}`;
}

/** How a call ended, with the counts its run printed: `ok (12 passed)`, `exit 1 (1 failed, 9 passed)`. */
export function outcomeWords(outcome: CallOutcome, counts?: string): string {
  if (outcome.status === "pending") return "no result yet";
  const head =
    outcome.exitCode !== undefined
      ? outcome.exitCode === 0 && outcome.status === "ok"
        ? "ok"
        : `exit ${outcome.exitCode}`
      : outcome.status;
  const shown = outcome.status === "failed" && outcome.exitCode === 0 ? "failed (exit 0)" : head;
  return counts === undefined ? shown : `${shown} (${counts})`;
}
