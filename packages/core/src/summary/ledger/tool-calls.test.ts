import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../messages/types.js";
import { call } from "../../test-support/conversation.js";
import { filesTouched } from "./tool-calls.js";

describe("filesTouched", () => {
  const touched = (c: ToolCall): string[] => filesTouched(c).map((t) => `${t.kind}:${t.path}`);

  it("recognizes Claude Code tools", () => {
    expect(touched(call("1", "Read", { file_path: "/p/a.ex", limit: 50 }))).toEqual([
      "read:/p/a.ex",
    ]);
    expect(
      touched(call("2", "Edit", { file_path: "/p/a.ex", old_string: "a", new_string: "b" })),
    ).toEqual(["modified:/p/a.ex"]);
    expect(touched(call("3", "Write", { file_path: "/p/b.ex", content: "x" }))).toEqual([
      "modified:/p/b.ex",
    ]);
    expect(touched(call("4", "MultiEdit", { file_path: "/p/c.ex", edits: [] }))).toEqual([
      "modified:/p/c.ex",
    ]);
    expect(touched(call("5", "NotebookEdit", { notebook_path: "/p/n.ipynb" }))).toEqual([
      "modified:/p/n.ipynb",
    ]);
    expect(touched(call("6", "Grep", { pattern: "x", path: "/p" }))).toEqual([]);
    expect(touched(call("7", "Glob", { pattern: "**/*.ex" }))).toEqual([]);
  });

  it("recognizes the OpenHands editor by its command", () => {
    const path = "/workspace/ponylang__ponyc__0.1/src/libponyc/expr/match.c";
    expect(touched(call("toolu_05", "str_replace_editor", { command: "view", path }))).toEqual([
      `read:${path}`,
    ]);
    expect(
      touched(
        call("toolu_10", "str_replace_editor", {
          command: "str_replace",
          path,
          old_str: "a",
          new_str: "b",
        }),
      ),
    ).toEqual([`modified:${path}`]);
    expect(
      touched(
        call("t", "str_replace_editor", { command: "create", path: "/w/t.c", file_text: "" }),
      ),
    ).toEqual(["modified:/w/t.c"]);
  });

  it("reads apply_patch blocks and applied unified diffs", () => {
    const patch =
      "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** Add File: src/new.ts\n+x\n*** End Patch";
    expect(touched(call("c1", "apply_patch", { input: patch }))).toEqual([
      "modified:src/app.ts",
      "modified:src/new.ts",
    ]);
    expect(
      touched(
        call("c2", "shell", { command: ["bash", "-lc", `apply_patch <<'EOF'\n${patch}\nEOF`] }),
      ),
    ).toEqual(["modified:src/app.ts", "modified:src/new.ts"]);
    const diff = "git apply <<'EOF'\n--- a/lib/x.py\n+++ b/lib/x.py\n@@ -1 +1 @@\n-a\n+b\nEOF";
    expect(touched(call("c3", "bash", { command: diff }))).toEqual(["modified:lib/x.py"]);
    // Writing a patch file does not modify the files it names.
    const written = "cat > fix.diff << 'EOF'\n--- a/lib/x.py\n+++ b/lib/x.py\nEOF";
    expect(touched(call("c4", "bash", { command: written }))).toEqual(["modified:fix.diff"]);
  });

  it("classifies unknown tools by name and ignores malformed arguments", () => {
    expect(touched(call("1", "mcp__fs__read_text_file", { path: "/etc/hosts" }))).toEqual([
      "read:/etc/hosts",
    ]);
    expect(touched(call("2", "save_document", { filename: "notes.md" }))).toEqual([
      "modified:notes.md",
    ]);
    expect(touched(call("3", "search", { path: "src" }))).toEqual([]);
    expect(touched(call("4", "Read", "{not json"))).toEqual([]);
  });
});
