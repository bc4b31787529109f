import type { ChatMessage } from "@condense/core";
import { describe, expect, it } from "vitest";
import { answers, haystackOf } from "./probe-check";
import { buildProbes } from "./probe-set";

const call = (id: string, name: string, args: Record<string, unknown>): ChatMessage => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
});
const result = (id: string, content: string): ChatMessage => ({
  role: "tool",
  tool_call_id: id,
  content,
});

const history: ChatMessage[] = [
  { role: "system", content: "You are an agent." },
  { role: "user", content: "Fix the failing parser test, and never touch the vendored code." },
  call("e1", "str_replace_editor", {
    command: "str_replace",
    path: "/repo/parser.py",
    old_str: "def parse(text):\n    return text.split(',')",
    new_str: "def parse(text):\n    return [part.strip() for part in text.split(',')]",
  }),
  result("e1", "The file /repo/parser.py has been edited."),
  call("t1", "execute_bash", { command: "cd /repo && python -m pytest tests/test_parser.py" }),
  result(
    "t1",
    `FAILED tests/test_parser.py::test_spaces - AssertionError: lists differ\n${"x".repeat(300)}\n[The command completed with exit code 1.]`,
  ),
  call("t2", "execute_bash", { command: "cd /repo && python -m pytest tests/test_parser.py" }),
  result("t2", `1 passed in 0.02s\n${"y".repeat(300)}\n[The command completed with exit code 0.]`),
  { role: "assistant", content: "The test passes now; I will run the whole suite next." },
];

describe("buildProbes", () => {
  const probes = buildProbes(history);
  const keys = probes.map((probe) => probe.key);

  it("asks for each kind: the file and its change, the error and its fix, the instruction, the newest outputs and intention, the command and its outcome", () => {
    expect(keys).toEqual([
      "file /repo/parser.py",
      "error tests/test_parser.py::test_spaces",
      "command python -m pytest tests/test_parser.py",
      "instruction Fix the failing parser test, and never touch the vendored code.",
      "output t1",
      "output t2",
      "intention The test passes now; I will run the whole suite next.",
    ]);
  });

  it("is answered by the whole history", () => {
    const haystack = haystackOf(history);
    expect(probes.filter((probe) => !answers(probe, haystack))).toEqual([]);
  });

  it("is answered by a summary that says what changed, what broke and that it was fixed", () => {
    const summary = [
      "> Fix the failing parser test, and never touch the vendored code.",
      "- /repo/parser.py — 1 edit; touching `def parse`",
      "- `tests/test_parser.py::test_spaces` — fixed by a later run",
      "- $ cd /repo && python -m pytest tests/test_parser.py → ok (1 passed)",
      "The test passes now; I will run the whole suite next.",
    ].join("\n");
    const haystack = haystackOf([{ role: "user", content: summary }]);
    const missed = probes.filter((probe) => !answers(probe, haystack)).map((probe) => probe.key);
    expect(missed).toEqual(["output t1", "output t2"]);
  });

  it("is not answered by a path alone, an error without its fix, or a placeholder", () => {
    const haystack = haystackOf([
      {
        role: "user",
        content:
          "Files: /repo/parser.py\nErrors: tests/test_parser.py::test_spaces\n$ python -m pytest tests/test_parser.py → exit 1",
      },
      call("t2", "execute_bash", { command: "true" }),
      result(
        "t2",
        "[Condense pruned this execute_bash output (90 tokens) to save context; fetch it back by tool call id t2 if needed.]",
      ),
    ]);
    const answered = probes.filter((probe) => answers(probe, haystack)).map((probe) => probe.key);
    expect(answered).toEqual([]);
  });
});
