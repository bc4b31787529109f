import type { ChatMessage } from "@condense/core";
import { describe, expect, it } from "vitest";
import { errorSignatures, readCalls, testOrBuildStep } from "./call-reading";

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

describe("errorSignatures", () => {
  it("takes ExUnit's failing test and the `** (Error)` line, not the `1) test` header", () => {
    const output = [
      "Exit code 2",
      "  1) test mount renders the page (SpotterWeb.ReviewLiveTest)",
      "     test/spotter_web/live/review_live_test.exs:58",
      "     ** (RuntimeError) no :secret_key_base configuration found in SpotterWeb.Endpoint.",
      "     stacktrace:",
    ].join("\n");
    expect(errorSignatures(output)).toEqual([
      "** (RuntimeError) no :secret_key_base configuration found in SpotterWeb.Endpoint.",
      "test/spotter_web/live/review_live_test.exs:58",
    ]);
  });

  it("takes a traceback's exception line, pytest's failing ids and compiler codes", () => {
    expect(
      errorSignatures(
        "Traceback (most recent call last):\n  File \"x.py\", line 3\nKeyError: 'missing key'",
      ),
    ).toEqual(["KeyError: 'missing key'"]);
    expect(errorSignatures("FAILED tests/test_a.py::test_b - assert 1 == 2")).toEqual([
      "tests/test_a.py::test_b",
    ]);
    expect(errorSignatures("src/a.ts(3,1): error TS2345: Argument of type 'x' is wrong")).toEqual([
      "error TS2345: Argument of type 'x' is wrong",
    ]);
  });

  it("says nothing of an output without a telling line", () => {
    expect(errorSignatures("error ->")).toEqual([]);
  });
});

describe("testOrBuildStep", () => {
  it("is the step that runs tests, with its directory, pipes and redirections cut", () => {
    expect(testOrBuildStep("cd /testbed && python -m pytest tests/x.py -q 2>&1 | tail -5")).toBe(
      "python -m pytest tests/x.py -q",
    );
    expect(testOrBuildStep("mix test --seed 0 2>&1 | tail -50")).toBe("mix test --seed 0");
    expect(testOrBuildStep("grep -rn pytest .")).toBeUndefined();
  });
});

describe("readCalls", () => {
  it("reads edits of editors, here-documents and sed, with the definitions they touch", () => {
    const calls = readCalls([
      call("a", "Edit", {
        file_path: "/p/lib/x.ex",
        old_string: "  def run(a), do: a",
        new_string: "  def run(a, b), do: a + b",
      }),
      result("a", "ok"),
      call("b", "bash", {
        command:
          "cat <<'EOF' > reproduce.py\nimport sys\ndef main():\n    pass\nEOF\npython reproduce.py",
      }),
      result(
        "b",
        "<returncode>1</returncode>\n<output>Traceback (most recent call last):\nValueError: bad value here</output>",
      ),
      call("c", "bash", { command: "sed -i 's/old_name/new_name/g' src/mod.py" }),
      result("c", "<returncode>0</returncode>"),
    ]);
    expect(calls.map((c) => c.edits.map((e) => [e.path, e.symbols, e.added[0]]))).toEqual([
      [["/p/lib/x.ex", ["def run"], "def run(a, b), do: a + b"]],
      [["reproduce.py", ["def main"], "import sys"]],
      [["src/mod.py", [], "new_name"]],
    ]);
    expect(calls.map((c) => c.failed)).toEqual([false, true, false]);
    expect(calls[1]?.signatures).toEqual(["ValueError: bad value here"]);
    expect(calls[1]?.step).toBe("python reproduce.py");
  });

  it("takes grep's exit 1 for nothing found, not a failure", () => {
    const [grep] = readCalls([
      call("g", "bash", { command: "grep -rn foo src" }),
      result("g", "<returncode>1</returncode>"),
    ]);
    expect(grep?.failed).toBe(false);
  });
});
