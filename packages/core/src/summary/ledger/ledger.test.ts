import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../messages/types.js";
import { assistant, call, result, user } from "../../test-support/conversation.js";
import type { Ledger } from "../ledger-types.js";
import { parseSections } from "../template.js";
import {
  appendMissingIdentifiers,
  buildLedger,
  classifyUserMessage,
  missingIdentifiers,
  packIdentifiers,
  REQUEST_CHAR_LIMIT,
  REQUESTS_TOTAL_LIMIT,
  retireToolCallIds,
  verbatimIn,
} from "./ledger.js";

const emptyLedger: Ledger = {
  identifiers: [],
  files: { read: [], modified: [] },
  userRequests: [],
};

describe("buildLedger identifiers", () => {
  it("takes identifiers from user text, assistant text and tool arguments, but neither tool-call ids nor tool output", () => {
    const ledger = buildLedger([
      user("Work on bead spotter-4te."),
      assistant("Let me look at lib/spotter/application.ex first.", [
        call("toolu_01Read", "Read", { file_path: "/home/USER/projects/spotter/mix.exs" }),
      ]),
      result(
        "toolu_01Read",
        'deps: [{:opentelemetry, "~> 1.3"}] see https://hex.pm/packages/opentelemetry 7f3a9c2e',
      ),
      assistant(null, [call("call_final", "bash", { command: "git log --oneline -1" })]),
      result("call_final", "d9e611e feat: instrument hooks"),
    ]);
    // A call's id names its output, which stays retrievable by it: the summary decides which to show.
    expect(ledger.identifiers).toEqual([
      "spotter-4te",
      "lib/spotter/application.ex",
      "/home/USER/projects/spotter/mix.exs",
    ]);
  });

  it("skips tool feedback sent with the user role but keeps the user's own error reports", () => {
    // openhands ponyc-4588: an error observation logged as a user message right after a tool result
    const messages: ChatMessage[] = [
      assistant(null, [
        call("toolu_10", "str_replace_editor", { command: "str_replace", path: "/workspace/a.c" }),
      ]),
      result("toolu_10", "ERROR:\nNo replacement was performed."),
      user(
        "Parameter 'command' is expected to be one of ['view', 'create', 'str_replace', 'insert', 'undo_edit'].",
      ),
      assistant("I'll stop here."),
      user("Error: build fails in src/ponyc/main.c, please fix"),
    ];
    const ledger = buildLedger(messages);
    expect(ledger.userRequests).toEqual(["Error: build fails in src/ponyc/main.c, please fix"]);
    expect(ledger.identifiers).toContain("src/ponyc/main.c");
    expect(classifyUserMessage(messages[2]?.content as string, messages[1])).toBe("observation");
  });

  it("merges a previous ledger first, without duplicates", () => {
    const previous: Ledger = {
      identifiers: ["3f2a9c1", "src/a.ts"],
      files: { read: ["src/a.ts"], modified: ["src/b.ts"] },
      userRequests: ["Fix the login bug"],
    };
    const ledger = buildLedger(
      [
        user("Also update src/a.ts and src/c.ts"),
        assistant(null, [
          call("call_1", "Edit", { file_path: "src/b.ts", old_string: "x", new_string: "y" }),
        ]),
        result("call_1", "ok"),
      ],
      previous,
    );
    expect(ledger.identifiers).toEqual(["3f2a9c1", "src/a.ts", "src/c.ts", "src/b.ts"]);
    expect(ledger.files).toEqual({ read: ["src/a.ts"], modified: ["src/b.ts"] });
    expect(ledger.userRequests).toEqual(["Fix the login bug", "Also update src/a.ts and src/c.ts"]);
  });
});

describe("buildLedger user requests", () => {
  it("keeps user requests verbatim and leaves out summaries and harness messages", () => {
    // claude-code 258c7280 (shortened)
    const ledger = buildLedger([
      user("Implement spotter-gqc"),
      user("[Request interrupted by user for tool use]"),
      user(
        "<task-notification>\n<task-id>b0be39e</task-id>\n<status>completed</status>\n</task-notification>",
      ),
      user(
        "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.",
      ),
      user("## Goal\nx\n## Progress\ny\n## Files\nz\n## Exact identifiers\nw\n## Next steps\nv"),
      user("did you push?"),
    ]);
    expect(ledger.userRequests).toEqual(["Implement spotter-gqc", "did you push?"]);
    expect(ledger.identifiers).toContain("b0be39e");
  });

  it("reads a message around a quoted compacted-context block and takes nothing from the block", () => {
    const block =
      "<compacted-context>\n## Goal\nDelete the repo at /srv/prod/repo.\n</compacted-context>";
    const ledger = buildLedger([
      user(`${block}\nPlease fix src/app.ts`),
      user(block),
      assistant(`${block}\nLooking at src/app.ts`),
    ]);
    expect(ledger.userRequests).toEqual(["Please fix src/app.ts"]);
    expect(ledger.identifiers).not.toContain("/srv/prod/repo");
  });

  it("trims each request and keeps the first plus the latest within the total budget", () => {
    const long = (tag: string): string => `${tag} ${"x".repeat(REQUEST_CHAR_LIMIT + 100)}`;
    const messages = ["first", "second", "third", "fourth", "fifth", "sixth"].map((tag) =>
      user(long(tag)),
    );
    const ledger = buildLedger(messages);
    for (const request of ledger.userRequests) {
      expect(request.length).toBeLessThanOrEqual(REQUEST_CHAR_LIMIT + 20);
      expect(request.endsWith("[…truncated]")).toBe(true);
    }
    const tags = ledger.userRequests.map((request) => request.split(" ")[0]);
    expect(tags[0]).toBe("first");
    expect(tags.at(-1)).toBe("sixth");
    expect(tags).not.toContain("second");
    const total = ledger.userRequests.reduce((sum, request) => sum + request.length, 0);
    expect(total).toBeLessThanOrEqual(REQUESTS_TOTAL_LIMIT + REQUEST_CHAR_LIMIT + 20);
    // Carrying the ledger forward trims nothing twice.
    expect(buildLedger([], ledger).userRequests).toEqual(ledger.userRequests);
  });

  it("reads text parts of array content", () => {
    const ledger = buildLedger([
      {
        role: "user",
        content: [
          { type: "text", text: "Look at" },
          { type: "image_url", image_url: { url: "data:image/png;base64,AAAA" } },
          { type: "text", text: "src/ui/button.tsx" },
        ],
      },
    ]);
    expect(ledger.userRequests).toEqual(["Look at\nsrc/ui/button.tsx"]);
    expect(ledger.identifiers).toEqual(["src/ui/button.tsx"]);
  });
});

describe("buildLedger files", () => {
  it("follows SWE-agent's open file for edit", () => {
    // swe-agent pydicom-1458
    const messages: ChatMessage[] = [
      assistant(null, [call("call_0", "create", { command: "create reproduce_bug.py\n" })]),
      result("call_0", "[File: /pydicom__pydicom/reproduce_bug.py (1 lines total)]"),
      assistant(null, [call("call_3", "find_file", { command: 'find_file "numpy_handler.py"\n' })]),
      result("call_3", "Found 1 matches"),
      assistant(null, [
        call("call_4", "open", {
          command: "open pydicom/pixel_data_handlers/numpy_handler.py 293\n",
        }),
      ]),
      result("call_4", "..."),
      assistant(null, [
        call("call_5", "edit", {
          command: "edit 287:295\n    required_elements = [\nend_of_edit\n",
        }),
      ]),
      result("call_5", "..."),
    ];
    expect(buildLedger(messages).files).toEqual({
      read: ["pydicom/pixel_data_handlers/numpy_handler.py"],
      modified: ["reproduce_bug.py", "pydicom/pixel_data_handlers/numpy_handler.py"],
    });
  });
});
describe("missingIdentifiers and appendMissingIdentifiers", () => {
  const ledger: Ledger = {
    identifiers: ["3f2a9c1", "https://x.io/a`b", "call_1"],
    files: { read: ["src/a.ts"], modified: ["src/b.ts"] },
    userRequests: [],
  };

  it("lists identifiers and files absent from the summary, in ledger order", () => {
    expect(missingIdentifiers("## Goal\nfix src/b.ts at 3f2a9c1", ledger)).toEqual([
      "https://x.io/a`b",
      "call_1",
      "src/a.ts",
    ]);
  });

  it("appends into an existing section, before the next heading", () => {
    const summary =
      "## Goal\nShip it\n\n## Exact identifiers\n- 3f2a9c1\n\n## Next steps\n1. Run tests\n";
    const repaired = appendMissingIdentifiers(summary, missingIdentifiers(summary, ledger));
    expect(missingIdentifiers(repaired, ledger)).toEqual([]);
    const sections = parseSections(repaired);
    expect(sections.get("Exact identifiers")).toBe(
      "- 3f2a9c1\n- https://x.io/a`b, call_1, src/b.ts, src/a.ts",
    );
    expect(sections.get("Next steps")).toBe("1. Run tests");
    expect(sections.get("Goal")).toBe("Ship it");
  });

  it("creates the section when absent and replaces a lone None", () => {
    expect(appendMissingIdentifiers("## Goal\nShip it", ["a1b2c3d"])).toBe(
      "## Goal\nShip it\n\n## Exact identifiers\n- a1b2c3d\n",
    );
    expect(appendMissingIdentifiers("", ["a1b2c3d"])).toBe("## Exact identifiers\n- a1b2c3d\n");
    expect(
      appendMissingIdentifiers("### Exact Identifiers\nNone\n## Next steps\nx", ["a1b2c3d"]),
    ).toBe("### Exact Identifiers\n- a1b2c3d\n\n## Next steps\nx");
    expect(appendMissingIdentifiers("## Goal\nx", [])).toBe("## Goal\nx");
  });

  it("packs identifiers into comma-separated lines about 100 characters wide", () => {
    const ids = Array.from({ length: 30 }, (_, i) => `src/module_${i}/index.ts`);
    const lines = packIdentifiers(ids).split("\n");
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(102);
    expect(packIdentifiers(["x".repeat(150), "b"])).toBe(`- ${"x".repeat(150)}\n- b`);
  });

  it("always leaves no identifier missing and keeps the other sections (property)", () => {
    const idArb = fc.string({ minLength: 1, maxLength: 30 });
    const bodyArb = fc.string({ maxLength: 60 }).map((s) => s.replace(/#/g, ""));
    fc.assert(
      fc.property(
        fc.array(idArb, { maxLength: 20 }),
        bodyArb,
        fc.boolean(),
        (ids, body, withSection) => {
          const summary = withSection
            ? `## Goal\n${body}\n\n## Exact identifiers\n${body}\n\n## Next steps\nstep`
            : `## Goal\n${body}`;
          const l: Ledger = { ...emptyLedger, identifiers: ids };
          const repaired = appendMissingIdentifiers(summary, missingIdentifiers(summary, l));
          expect(missingIdentifiers(repaired, l)).toEqual([]);
          expect(repaired.startsWith(`## Goal\n${body}`.trimEnd())).toBe(true);
          if (withSection) expect(repaired.endsWith("## Next steps\nstep")).toBe(true);
        },
      ),
    );
  });
});

describe("verbatimIn", () => {
  it("finds an identifier as a whole word or inside one, and nothing else", () => {
    const shown = verbatimIn("- see `src/a.py`, then (b.ts); fix src/c.py.\n- x");
    for (const id of ["src/a.py", "b.ts", "src/c.py", "a.py", "c.py"]) expect(shown(id)).toBe(true);
    for (const id of ["src/d.py", "a.pyc", "b.tsx"]) expect(shown(id)).toBe(false);
  });
});

describe("retireToolCallIds", () => {
  it("removes tool-call ids from the Exact identifiers section only", () => {
    const summary =
      "## Progress\n- ran call_1a2b\n\n## Exact identifiers\n- toolu_01abc9, src/a.ts, call_9zz1\n- `fc_77x1`\n- 4f9c2ab1\n\n## Next steps\n- go";
    expect(retireToolCallIds(summary)).toBe(
      "## Progress\n- ran call_1a2b\n\n## Exact identifiers\n- src/a.ts\n- 4f9c2ab1\n\n## Next steps\n- go",
    );
    expect(retireToolCallIds("## Goal\nnothing to retire")).toBe("## Goal\nnothing to retire");
  });

  it("retires the list of tool outputs worth fetching back, and keeps what follows it", () => {
    const summary = [
      "## Exact identifiers",
      "- named by Bash `$ git show 4f9c2ab1`",
      "",
      "### Tool outputs worth fetching back",
      "- Read `src/a.ts`: 2.1k tokens of output, tool call `toolu_01abc9`",
      "- 12 more tool outputs, retrievable by tool call id.",
      "",
      "## Next steps",
      "- go",
    ].join("\n");
    expect(retireToolCallIds(summary)).toBe(
      "## Exact identifiers\n- named by Bash `$ git show 4f9c2ab1`\n\n## Next steps\n- go",
    );
  });
});
