import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../messages/types.js";
import { assistant, call, result } from "../test-support/conversation.js";
import { MAX_LEDGER_ERRORS, mergeOutcomes } from "./ledger-outcomes.js";

const run = (id: string, command: string, output: string): ChatMessage[] => [
  assistant(null, [call(id, "bash", { command })]),
  result(id, output),
];

const failing = (id: string, test = "tests/test_a.py::test_b") =>
  run(
    id,
    "cd /testbed && python -m pytest tests/test_a.py",
    `<returncode>1</returncode>\nFAILED ${test} - AssertionError: 1 != 2\n1 failed, 3 passed`,
  );
const passing = (id: string) =>
  run(
    id,
    "cd /testbed && python -m pytest tests/test_a.py",
    "<returncode>0</returncode>\n4 passed",
  );

describe("mergeOutcomes", () => {
  it("keeps every distinct signature with its state, and every test run with its latest outcome", () => {
    const outcomes = mergeOutcomes({}, [
      ...run(
        "c1",
        "python reproduce.py",
        "<returncode>1</returncode>\nTraceback (most recent call last):\nKeyError: 'header_rows'",
      ),
      ...failing("c2"),
      ...passing("c3"),
      ...run(
        "c4",
        "python reproduce.py",
        "<returncode>1</returncode>\nTraceback (most recent call last):\nTypeError: bad operand",
      ),
    ]);
    // Least recently met first.
    expect(outcomes.errors).toEqual([
      { signature: "KeyError: 'header_rows'", step: "$ python reproduce.py", state: "failing" },
      {
        signature: "FAILED tests/test_a.py::test_b - AssertionError: 1 != 2",
        step: "$ python -m pytest tests/test_a.py",
        state: "fixed",
      },
      { signature: "TypeError: bad operand", step: "$ python reproduce.py", state: "failing" },
    ]);
    expect(outcomes.commands).toEqual([
      {
        step: "python -m pytest tests/test_a.py",
        kind: "test",
        outcome: "ok (4 passed)",
        failed: false,
      },
      { step: "python reproduce.py", kind: "test", outcome: "exit 1", failed: true },
    ]);
  });

  it("fixes an earlier range's error when its step succeeds now, and fails it again when it comes back", () => {
    const earlier = mergeOutcomes({}, failing("c1"));
    expect(earlier.errors.map((e) => e.state)).toEqual(["failing"]);
    const fixed = mergeOutcomes(earlier, passing("c2"));
    expect(fixed.errors.map((e) => e.state)).toEqual(["fixed"]);
    expect(fixed.commands.map((c) => c.outcome)).toEqual(["ok (4 passed)"]);
    const again = mergeOutcomes(fixed, [...passing("c3"), ...failing("c4")]);
    expect(again.errors.map((e) => e.state)).toEqual(["failing"]);
  });

  it("is the same when a range is merged twice", () => {
    const range = [...passing("c1"), ...failing("c2")];
    const once = mergeOutcomes({}, range);
    expect(mergeOutcomes(once, range)).toEqual(once);
  });

  it("drops the oldest fixed errors first past its cap", () => {
    const range: ChatMessage[] = [];
    for (let i = 0; i < MAX_LEDGER_ERRORS + 5; i++) {
      const command = `python check_${i}.py`;
      range.push(
        ...run(
          `f${i}`,
          command,
          `<returncode>1</returncode>\nTraceback (most recent call last):\nValueError: case ${i} is wrong`,
        ),
      );
      if (i < 10) range.push(...run(`p${i}`, command, "<returncode>0</returncode>\nall fine"));
    }
    const { errors } = mergeOutcomes({}, range);
    expect(errors).toHaveLength(MAX_LEDGER_ERRORS);
    expect(errors.filter((e) => e.state === "fixed")).toHaveLength(5);
    expect(errors[0]?.signature).toBe("ValueError: case 5 is wrong");
    expect(errors.at(-1)?.signature).toBe(`ValueError: case ${MAX_LEDGER_ERRORS + 4} is wrong`);
  });

  it("withholds a secret an error line prints", () => {
    const { errors } = mergeOutcomes(
      {},
      run(
        "c1",
        "python deploy.py",
        "<returncode>1</returncode>\nError: token sk-proj-abcdefghijklmnopqrstuvwxyz0123456789 was rejected by the server",
      ),
    );
    expect(errors[0]?.signature).not.toContain("sk-proj-abcdefghijklmnopqrstuvwxyz0123456789");
    expect(errors[0]?.signature).toMatch(/^Error: token .* was rejected by the server$/);
  });
});
