import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractIdentifiers } from "./identifiers.js";

describe("extractIdentifiers on real transcript snippets", () => {
  it("finds a GitHub URL inside a Markdown link, without the closing parenthesis", () => {
    // swe-agent pydicom-1458, the issue text
    const text =
      "The NumPy pixel data handler currently [requires the Pixel Representation attribute](https://github.com/pydicom/pydicom/blob/8da0b9b215ebfad5756051c891def88e426787e7/pydicom/pixel_data_handlers/numpy_handler.py#L46). This is problematic";
    expect(extractIdentifiers(text)).toEqual([
      "https://github.com/pydicom/pydicom/blob/8da0b9b215ebfad5756051c891def88e426787e7/pydicom/pixel_data_handlers/numpy_handler.py#L46",
    ]);
  });

  it("reads a Claude Code task notification but not its closing tags", () => {
    // claude-code 258c7280, a user message
    const text =
      '<task-notification>\n<task-id>b0be39e</task-id>\n<output-file>/tmp/claude-1000/-home-USER-projects-spotter-worktrees-spotter-gqc/tasks/b0be39e.output</output-file>\n<status>completed</status>\n<summary>Background command "Force recompile ash deps to clear stale associations" completed (exit code 0)</summary>\n</task-notification>';
    expect(extractIdentifiers(text)).toEqual([
      "b0be39e",
      "/tmp/claude-1000/-home-USER-projects-spotter-worktrees-spotter-gqc/tasks/b0be39e.output",
    ]);
  });

  it("finds a bead id, its sub-items and a short commit id", () => {
    // claude-code ae4a77f8
    const text =
      "Work on bead spotter-4te. Run bd show spotter-4te.3 to see the issue details.\n[spotter-4te d9e611e] feat: instrument hook controllers";
    expect(extractIdentifiers(text)).toEqual(["spotter-4te", "spotter-4te.3", "d9e611e"]);
  });

  it("splits a git index range into its two hashes", () => {
    // mini-swe-agent django-11910, the submitted patch
    const text =
      "diff --git a/django/db/migrations/operations/fields.py b/django/db/migrations/operations/fields.py\nindex 402dae2829..1e1817e3b0 100644";
    expect(extractIdentifiers(text)).toEqual([
      "a/django/db/migrations/operations/fields.py",
      "b/django/db/migrations/operations/fields.py",
      "402dae2829",
      "1e1817e3b0",
    ]);
  });

  it("finds a W3C trace context: its trace and span ids are hashes joined by dashes", () => {
    // claude-code ae4a77f8, an Edit of a test module (issue 28: these two ids were lost at 32k)
    const text =
      '  @valid_traceparent "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"\n  @malformed_traceparent "not-a-valid-traceparent"';
    expect(extractIdentifiers(text)).toEqual([
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    ]);
    // Dash-joined words and numbers stay out: no part is a hash.
    expect(extractIdentifiers("see 2024-01-15 and 10-20-30 and ab-cd-ef")).toEqual([]);
  });

  it("finds the paths of a shell command and skips the sed expression", () => {
    // mini-swe-agent pvlib-1707, a tool call's command
    const text =
      "cd /testbed && sed -i 's/np\\.Inf/np.inf/g' ./pvlib/singlediode.py ./pvlib/pvsystem.py";
    expect(extractIdentifiers(text)).toEqual([
      "/testbed",
      "./pvlib/singlediode.py",
      "./pvlib/pvsystem.py",
    ]);
  });

  it("finds the workspace path of an OpenHands task", () => {
    const text =
      "<uploaded_files>\n/workspace/ponylang__ponyc__0.1\n</uploaded_files>\nI've uploaded a C code repository in the directory ponylang__ponyc__0.1.";
    expect(extractIdentifiers(text)).toEqual(["/workspace/ponylang__ponyc__0.1"]);
  });

  it("finds traceback file paths", () => {
    // mini-swe-agent astropy-14182
    const text =
      'Traceback (most recent call last):\n  File "/testbed/test_rst_issue.py", line 1, in <module>\n    from astropy.table import QTable\n  File "/testbed/astropy/__init__.py", line 41, in <module>';
    expect(extractIdentifiers(text)).toEqual([
      "/testbed/test_rst_issue.py",
      "/testbed/astropy/__init__.py",
    ]);
  });

  it("keeps prose about libraries and alternatives out", () => {
    // openhands basic_gui_mode, assistant text
    const text =
      "I've created a complete Vue.js todo application with all the requested features.\n   - Mark todos as complete/incomplete\n   - Delete todos, e.g. the done ones.";
    expect(extractIdentifiers(text)).toEqual([]);
  });
});

describe("extractIdentifiers rules", () => {
  const cases: [string, string[]][] = [
    [
      "session 123e4567-e89b-12d3-a456-426614174000 started",
      ["123e4567-e89b-12d3-a456-426614174000"],
    ],
    ["commit 3f2a9c1 and 3F2A9C1B", ["3f2a9c1", "3F2A9C1B"]],
    ["deadbeef facade 1234567 1e10000 Deadbee1", []],
    [
      "see https://example.com/a_(b)_c, and (https://x.io/y).",
      ["https://example.com/a_(b)_c", "https://x.io/y"],
    ],
    [
      "ws://localhost:8787/ws git+ssh://git@github.com/o/r.git",
      ["ws://localhost:8787/ws", "git+ssh://git@github.com/o/r.git"],
    ],
    [
      "clone git@github.com:owner/repo.git or mail dev@example.org",
      ["git@github.com:owner/repo.git", "dev@example.org"],
    ],
    ["edit /a/b.c then src/x/y.ts, ./x and ../x", ["/a/b.c", "src/x/y.ts", "./x", "../x"]],
    [
      "open C:\\Users\\dev\\app\\main.py and \\\\fileserver\\share\\x.txt",
      ["C:\\Users\\dev\\app\\main.py", "\\\\fileserver\\share\\x.txt"],
    ],
    [
      "check package.json, Makefile, .env and .gitignore",
      ["package.json", "Makefile", ".env", ".gitignore"],
    ],
    [
      "error at foo.py:123 and src/a.ts:10:5 and lib/x.ex#L12-L20",
      ["foo.py", "src/a.ts", "lib/x.ex"],
    ],
    ["api.example.com answered, 1.2.3 and v1.2.3 are versions", ["api.example.com"]],
    [
      "listen on 127.0.0.1:8080, [::1]:8080, localhost:8787 and 10.0.0.0/8",
      ["127.0.0.1:8080", "[::1]:8080", "localhost:8787", "10.0.0.0/8"],
    ],
    ["999.1.1.1 is not an address", []],
    [
      "call_00_WE6l0B7Lm18P29SJRcGmjILR toolu_01 fc_abc123 call_final",
      ["call_00_WE6l0B7Lm18P29SJRcGmjILR", "toolu_01", "fc_abc123"],
    ],
    [
      "req_abc123 sess-9f8e7d PROJ-123 CVE-2024-12345",
      ["req_abc123", "sess-9f8e7d", "PROJ-123", "CVE-2024-12345"],
    ],
    ["utf-8 UTF-8 SHA-256 int64 test_case_1 remote_field2 text-2xl", []],
    [
      "01ARZ3NDEKTSV4RRFFQ69G5FAV and key Xk9pQ2mZ7rT4vB8nL3wY6cJ1",
      ["01ARZ3NDEKTSV4RRFFQ69G5FAV", "Xk9pQ2mZ7rT4vB8nL3wY6cJ1"],
    ],
    ["and/or read/write Elixir/Phoenix/Ash mount/handle_params/handle_event n1/n2", []],
    ["String.trim/1 with_span/2-3 np.array(0)/np.array(0)", []],
    ["self.info res.json() console.log e.g. i.e. Node.js os.path", []],
    ["</span></div> <br/>", []],
    [
      "the priv/repo/migrations/ dir and .beads/ and src/lib and spotter-plugin/scripts",
      ["priv/repo/migrations/", ".beads/", "src/lib", "spotter-plugin/scripts"],
    ],
    ["**src/index.ts** and `docs/README.md`", ["src/index.ts", "docs/README.md"]],
    [
      "--output=/tmp/out.log PATH=/usr/local/bin:/usr/bin",
      ["/tmp/out.log", "/usr/local/bin", "/usr/bin"],
    ],
    ["marot/spotter@8cc42b0bd39d", ["marot/spotter@8cc42b0bd39d"]],
    ["node_modules/@types/node/index.d.ts", ["node_modules/@types/node/index.d.ts"]],
    [
      "a/b/123e4567-e89b-12d3-a456-426614174000.json",
      ["a/b/123e4567-e89b-12d3-a456-426614174000.json", "123e4567-e89b-12d3-a456-426614174000"],
    ],
    ["2>/dev/null and > /dev/null", []],
  ];
  for (const [text, expected] of cases) {
    it(`extracts ${JSON.stringify(expected)} from ${JSON.stringify(text)}`, () => {
      expect(extractIdentifiers(text)).toEqual(expected);
    });
  }

  it("returns distinct identifiers in first-seen order", () => {
    expect(extractIdentifiers("bb.ts aa.ts bb.ts 3f2a9c1 aa.ts 3f2a9c1")).toEqual([
      "bb.ts",
      "aa.ts",
      "3f2a9c1",
    ]);
  });

  it("produces nothing from minified JavaScript", () => {
    const minified =
      '!function(e,t){"object"==typeof exports&&"undefined"!=typeof module?module.exports=t():"function"==typeof define&&define.amd?define(t):(e=e||self).Vue=t()}(this,function(){"use strict";var e=Object.freeze({});function t(e){return null==e}function n(e){return null!=e}function r(e){return!0===e}function o(e){return"string"==typeof e||"number"==typeof e||"symbol"==typeof e||"boolean"==typeof e}var a=Object.prototype.toString;function c(e){return"[object Object]"===a.call(e)}function u(e){var t=parseFloat(String(e));return t>=0&&Math.floor(t)===t&&isFinite(e)}var p=/-(\\w)/g,h=/\\B([A-Z])/g;e.json(),t.map(n),r.data.items.length});';
    expect(extractIdentifiers(minified)).toEqual([]);
  });

  it("produces nothing from a base64 blob, wrapped or not", () => {
    const blob = base64Like(200_000);
    expect(extractIdentifiers(blob)).toEqual([]);
    const wrapped = blob.match(/.{1,76}/g)?.join("\n") ?? "";
    expect(extractIdentifiers(`cert:\n${wrapped}\nend`)).toEqual([]);
  });
});

describe("extractIdentifiers on hostile input", () => {
  // Each input is about 1 MB. Catastrophic backtracking would take minutes;
  // the 20 s per-test timeout turns that into a failure (no timing assertion).
  const size = 1_000_000;
  const hostile: [string, string][] = [
    ["base64 without newlines", base64Like(size)],
    ["base64 wrapped at 76", (base64Like(size).match(/.{1,76}/g) ?? []).join("\n")],
    ["hex run", "a1".repeat(size / 2)],
    ["dots", "a.".repeat(size / 2)],
    ["slashes", "a/".repeat(size / 2)],
    ["colon digits", ":1".repeat(size / 2)],
    ["brackets", "[(".repeat(size / 2)],
    ["closers", ")]".repeat(size / 2)],
    ["schemes", "https://".repeat(size / 8)],
    ["tokens of 500 chars", `${"ab.cd/".repeat(83)} `.repeat(size / 500)],
    ["tokens of 4000 chars with a URL", `https://x.com/${"a(".repeat(1990)} `.repeat(size / 4000)],
    ["near-UUIDs", "0123456789abcdef-".repeat(size / 17)],
    ["at signs", "a@b.".repeat(size / 4)],
    ["dashes and digits", "ab-1".repeat(size / 4)],
    ["spaces between short tokens", "x.y ".repeat(size / 4)],
  ];
  for (const [name, text] of hostile) {
    it(`finishes on ${name}`, { timeout: 20_000 }, () => {
      const ids = extractIdentifiers(text);
      for (const id of ids.slice(0, 50)) expect(text.includes(id)).toBe(true);
    });
  }
});

describe("extractIdentifiers properties", () => {
  const alphabet = fc.constantFrom(
    ..."ab1F9/.:-_@()[]{}<>\"'` \n\\#=,;*~".split(""),
    "https://",
    "src/",
    ".ts",
    "call_",
    "123e4567-e89b-12d3-a456-426614174000",
  );
  const texts = fc.array(alphabet, { maxLength: 200 }).map((parts) => parts.join(""));

  it("returns distinct, whitespace-free substrings of the input", () => {
    fc.assert(
      fc.property(texts, (text) => {
        const ids = extractIdentifiers(text);
        expect(new Set(ids).size).toBe(ids.length);
        for (const id of ids) {
          expect(id.length).toBeGreaterThan(0);
          expect(/\s/.test(id)).toBe(false);
          expect(text.includes(id)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it("finds an identifier embedded in prose", () => {
    const ids = fc.constantFrom(
      "src/app/main.ts",
      "/var/log/app.log",
      "https://api.example.com/v1/users?id=5",
      "123e4567-e89b-12d3-a456-426614174000",
      "9fceb02d0ae598e95dc970b74767f19372d61af8",
      "toolu_01ABCdef234",
    );
    const words = fc.array(fc.constantFrom("the", "file", "at", "was", "changed", "and", "then"), {
      maxLength: 8,
    });
    fc.assert(
      fc.property(
        words,
        ids,
        words,
        fc.constantFrom("", ".", ",", ")", ":"),
        (before, id, after, punct) => {
          const text = `${before.join(" ")} ${id}${punct} ${after.join(" ")}`;
          expect(extractIdentifiers(text)).toContain(id);
        },
      ),
    );
  });
});

/** Deterministic base64-looking text (a linear congruential generator, so runs are reproducible). */
function base64Like(length: number): string {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let state = 12345;
  const out: string[] = [];
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    out.push(chars.charAt((state >>> 8) % 64));
  }
  return out.join("");
}
