/**
 * @module summary/error-signatures
 * The error signatures of a failed call's output: the lines that say what broke, as an engineer
 * would quote them. Elixir's `** (RuntimeError) message` (the outermost and the innermost of a
 * chain, not ExUnit's `1) test …` header), ExUnit's failing test (`test/x_test.exs:58`),
 * pytest's failing tests (`FAILED tests/test_a.py::test_b - AssertionError…`), a Python traceback's exception line,
 * compiler and linter codes (`error TS2345: …`, `error[E0308]: …`, flake8's `E999 SyntaxError:
 * …`, `file:line:col: error: …`), Go's `panic:`; else the first line that names an error.
 *
 * An output is data: a signature is quoted as it stands (cut to a line), never read as a
 * statement or an instruction. Only the lines are taken, never what they ask for.
 */

/** Longest signature kept, in characters. */
export const MAX_SIGNATURE_CHARS = 160;

/** Lines read of an output: its start and end hold the status lines and the errors. */
const MAX_LINES = 4_000;

const NOISE = /<returncode>-?\d+<\/returncode>|<\/?(?:returncode|output|tool_use_error)>/g;

const ELIXIR_EXCEPTION = /^\*\* \([A-Z][\w.]*\) \S/;
const EXUNIT_HEADER = /^\d+\) test .+ \([\w.]+\)$/;
const EXUNIT_PLACE = /^\S+\.exs?:\d+$/;
const PYTEST_FAILURE = /^(?:FAILED|ERROR) \S+::\S+/;
const CODES = [
  /\berror TS\d+: .*/,
  /\berror\[E\d+\]: .*/,
  /\b[EFW]\d{3,4} [A-Z]\w*(?:Error|Warning): .*/,
  /^\S+:\d+(?::\d+)?: (?:fatal )?error: .*/i,
  /^panic: .*/,
];
const EXCEPTION = /^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Failure)(?::\s.*|:?$)/;
const FIRST_ERROR =
  /^(?:error|fatal|Error|ERROR)\b\W|command not found|No such file or directory|[Pp]ermission denied|\bundefined (?:function|variable|method)\b/;

/** `line` as a signature: one line, addresses masked, at most MAX_SIGNATURE_CHARS. */
function signatureOf(line: string): string {
  const flat = line
    .replace(/\b0x[0-9a-f]{6,}\b/gi, "0x…")
    .replace(/\s+/g, " ")
    .trim();
  return flat.length <= MAX_SIGNATURE_CHARS ? flat : `${flat.slice(0, MAX_SIGNATURE_CHARS - 1)}…`;
}

/** A signature says something: a dozen characters and two words at least (not `error ->`). */
function telling(signature: string): boolean {
  return signature.length >= 12 && (signature.match(/[A-Za-z]{2,}/g)?.length ?? 0) >= 2;
}

function readLines(output: string): string[] {
  // Outputs can be megabytes: the start and the end say what broke.
  const text =
    output.length > 64_000 ? `${output.slice(0, 32_000)}\n${output.slice(-32_000)}` : output;
  return text
    .split("\n", MAX_LINES)
    .map((line) => line.replace(NOISE, "").trim())
    .filter((line) => line !== "");
}

/** The error signatures of a failed call's output, most telling first, without repeats. */
export function errorSignatures(output: string): string[] {
  const lines = readLines(output);
  const found: string[] = [];
  const elixir = lines.filter((line) => ELIXIR_EXCEPTION.test(line));
  const innermost = elixir[elixir.length - 1];
  if (innermost !== undefined) found.push(innermost);
  if (elixir[0] !== undefined && elixir[0] !== innermost) found.push(elixir[0]);
  const traceback = /Traceback \(most recent call last\)/.test(output);
  if (traceback) {
    const exception = lines.findLast((line) => EXCEPTION.test(line));
    if (exception !== undefined) found.push(exception);
  }
  lines.forEach((line, index) => {
    if (EXUNIT_HEADER.test(line)) {
      const place = lines[index + 1];
      if (place !== undefined && EXUNIT_PLACE.test(place)) found.push(place);
    }
    if (PYTEST_FAILURE.test(line)) found.push(line);
    for (const code of CODES) {
      const match = code.exec(line);
      if (match !== null) {
        found.push(match[0]);
        break;
      }
    }
  });
  if (found.length === 0) {
    const exception = lines.find((line) => EXCEPTION.test(line) && line.includes(":"));
    const first = exception ?? lines.find((line) => FIRST_ERROR.test(line));
    if (first !== undefined) found.push(first);
  }
  return [...new Set(found.map(signatureOf))].filter(telling);
}
