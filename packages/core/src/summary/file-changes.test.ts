import { describe, expect, it } from "vitest";
import { call } from "../test-support/conversation.js";
import { definitions, fileChange } from "./file-changes.js";

describe("fileChange", () => {
  it("reads a Claude Code Edit: the definition it touches, lines added and removed, the first line added", () => {
    const change = fileChange(
      call("toolu_1", "Edit", {
        file_path: "/p/lib/review.ex",
        old_string: "  def close(id) do\n    :ok\n  end",
        new_string:
          "  def close(id) do\n    Store.delete(id)\n    :ok\n  end\n\n  defp log(id), do: id",
      }),
      "/p/lib/review.ex",
    );
    expect(change).toEqual({
      how: "edit",
      symbols: ["defp log"],
      added: 2,
      removed: 0,
      after: "Store.delete(id)",
    });
  });

  it("names the enclosing definition when the changed lines define nothing", () => {
    const change = fileChange(
      call("toolu_2", "Edit", {
        file_path: "a.py",
        old_string: "def parse(text):\n    return text",
        new_string: "def parse(text):\n    return text.strip()",
      }),
      "a.py",
    );
    expect(change.symbols).toEqual(["def parse"]);
    expect([change.added, change.removed]).toEqual([1, 1]);
  });

  it("adds up the edits of a MultiEdit and counts a Write's lines", () => {
    const multi = fileChange(
      call("toolu_3", "MultiEdit", {
        file_path: "a.ts",
        edits: [
          { old_string: "let a = 1;", new_string: "let a = 2;" },
          { old_string: "", new_string: "export function b() {}\nexport class C {}" },
        ],
      }),
      "a.ts",
    );
    expect(multi).toMatchObject({
      how: "edit",
      added: 3,
      removed: 1,
      symbols: ["function b", "class C"],
    });
    const write = fileChange(
      call("toolu_4", "Write", {
        file_path: "b.go",
        content: "package b\n\nfunc (s *S) Run() {}\n",
      }),
      "b.go",
    );
    // A whole-file write says how the content starts: its first line.
    expect(write).toEqual({
      how: "write",
      symbols: ["func Run"],
      added: 3,
      removed: 0,
      after: "package b",
    });
  });

  it("reads the OpenHands editor by its command", () => {
    const path = "/w/src/match.c";
    expect(
      fileChange(
        call("t1", "str_replace_editor", {
          command: "str_replace",
          path,
          old_str: "return pattern_type;",
          new_str: "if(x) y(); return pattern_type;",
        }),
        path,
      ),
    ).toMatchObject({
      how: "edit",
      before: "return pattern_type;",
      after: "if(x) y(); return pattern_type;",
    });
    expect(
      fileChange(
        call("t2", "str_replace_editor", { command: "create", path, file_text: "a\nb" }),
        path,
      ),
    ).toMatchObject({ how: "write", added: 2 });
    expect(
      fileChange(call("t3", "str_replace_editor", { command: "undo_edit", path }), path).how,
    ).toBe("undo");
  });

  it("reads a patch: the file's +/- lines and the definition its hunk header names", () => {
    const patch = [
      "*** Begin Patch",
      "*** Update File: src/rules/L036.py",
      "@@ class Rule_L036(BaseRule):",
      "-        return None",
      "+        return LintResult(anchor=segment)",
      "*** Update File: src/other.py",
      "+x = 1",
      "*** End Patch",
    ].join("\n");
    expect(fileChange(call("c1", "apply_patch", { input: patch }), "src/rules/L036.py")).toEqual({
      how: "edit",
      symbols: ["class Rule_L036"],
      added: 1,
      removed: 1,
      before: "return None",
      after: "return LintResult(anchor=segment)",
    });
    const diff = [
      "cd /testbed && git apply <<'EOF'",
      "--- a/astropy/io/ascii/rst.py",
      "+++ b/astropy/io/ascii/rst.py",
      "@@ -57,6 +57,7 @@ class RST(FixedWidth):",
      "-    def __init__(self):",
      "+    def __init__(self, header_rows=None):",
      "EOF",
    ].join("\n");
    expect(
      fileChange(call("c2", "bash", { command: diff }), "astropy/io/ascii/rst.py"),
    ).toMatchObject({
      how: "edit",
      symbols: ["class RST", "def __init__"],
      added: 1,
      removed: 1,
      command: "cd /testbed && git apply <<'EOF'",
    });
  });

  it("reads shell changes: here-documents, sed substitutions, rm, mv, git checkout, other commands", () => {
    const change = (command: string, path: string) =>
      fileChange(call("c", "bash", { command }), path);
    expect(
      change(
        "cat > test_rst.py << 'EOF'\nimport sys\ndef main():\n    pass\nEOF\npython test_rst.py",
        "test_rst.py",
      ),
    ).toEqual({ how: "write", symbols: ["def main"], added: 3, removed: 0, after: "import sys" });
    expect(
      change("sed -i 's/def __init__(self):/def __init__(self, rows=None):/' rst.py", "rst.py"),
    ).toMatchObject({
      how: "edit",
      before: "def __init__(self):",
      after: "def __init__(self, rows=None):",
    });
    expect(change("cd /testbed && rm -f scratch.py", "scratch.py").how).toBe("delete");
    expect(change("mv a.py b.py", "b.py").how).toBe("move");
    expect(change("git checkout -- src/a.py", "src/a.py").how).toBe("restore");
    expect(change("python fix.py > out.txt", "out.txt")).toMatchObject({
      how: "command",
      command: "python fix.py > out.txt",
    });
  });

  it("reads a SWE-agent edit of the open file", () => {
    expect(
      fileChange(
        call("c", "edit", { command: "edit 12:14\ndef f():\n    return 1\nend_of_edit" }),
        "a.py",
      ),
    ).toEqual({ how: "edit", symbols: ["def f"], added: 2, removed: 3 });
  });
});

describe("definitions", () => {
  it("finds definitions across languages and ignores calls and prose", () => {
    expect(
      definitions([
        '  defp handle_event("close", _, socket) do',
        "export async function load(id) {",
        "pub(crate) fn parse(input: &str) -> Result<()> {",
        "class Foo(Bar):",
        "actor Main",
        "foo(def_x)",
        "We define the class here",
      ]),
    ).toEqual(["defp handle_event", "function load", "fn parse", "class Foo", "actor Main"]);
  });
});
