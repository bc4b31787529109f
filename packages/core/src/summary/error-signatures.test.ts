import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { errorSignatures, MAX_SIGNATURE_CHARS } from "./error-signatures.js";

describe("errorSignatures", () => {
  it("quotes an ExUnit failure's `** (RuntimeError)` line and its test, not the `1) test` header", () => {
    // claude-code 258c7280, a mix test run
    const output = [
      "Exit code 2",
      "Running ExUnit with seed: 918599, max_cases: 32",
      "  1) test mount renders transcript annotation with message ref count (SpotterWeb.ProjectReviewLiveTest)",
      "     test/spotter_web/live/project_review_live_test.exs:58",
      "     ** (RuntimeError) no :secret_key_base configuration found in SpotterWeb.Endpoint.",
      "     Ensure your environment has the necessary mix configuration. For example:",
      "     stacktrace:",
      "       (phoenix 1.8.3) lib/phoenix/token.ex:266: Phoenix.Token.get_endpoint_key_base/1",
    ].join("\n");
    expect(errorSignatures(output)).toEqual([
      "** (RuntimeError) no :secret_key_base configuration found in SpotterWeb.Endpoint.",
      "test/spotter_web/live/project_review_live_test.exs:58",
    ]);
  });

  it("takes the innermost and the outermost of an Elixir chain", () => {
    const output = [
      "** (Mix) Could not start application opentelemetry: exited in: :opentelemetry_app.start(:normal, [])",
      "    ** (EXIT) an exception was raised:",
      "        ** (BadMapError) expected a map, got:",
    ].join("\n");
    expect(errorSignatures(output)).toEqual([
      "** (BadMapError) expected a map, got:",
      "** (Mix) Could not start application opentelemetry: exited in: :opentelemetry_app.start(:normal, [])",
    ]);
  });

  it("takes a traceback's exception, pytest's failing ids and compiler codes", () => {
    expect(
      errorSignatures(
        "<returncode>1</returncode>\n<output>Traceback (most recent call last):\n  File \"r.py\", line 3, in <module>\nAttributeError: 'Dataset' object has no attribute 'PixelRepresentation'</output>",
      ),
    ).toEqual(["AttributeError: 'Dataset' object has no attribute 'PixelRepresentation'"]);
    expect(
      errorSignatures(
        "FAILED tests/test_io.py::test_read[utf8] - AssertionError: assert 1 == 2\nFAILED tests/test_io.py::test_write\n2 failed, 40 passed",
      ),
    ).toEqual([
      "FAILED tests/test_io.py::test_read[utf8] - AssertionError: assert 1 == 2",
      "FAILED tests/test_io.py::test_write",
    ]);
    expect(
      errorSignatures(
        "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      ),
    ).toEqual(["error TS2322: Type 'string' is not assignable to type 'number'."]);
    expect(errorSignatures("ERRORS:\n- E999 SyntaxError: unmatched ']'")).toEqual([
      "E999 SyntaxError: unmatched ']'",
    ]);
    expect(
      errorSignatures("packages/x/main.pony:12:5: Error: can't find declaration of 'foo'"),
    ).toEqual(["packages/x/main.pony:12:5: Error: can't find declaration of 'foo'"]);
  });

  it("falls back to the first line naming an error, and says nothing of a bare label", () => {
    expect(errorSignatures("Exit code 127\nbash: rg: command not found")).toEqual([
      "bash: rg: command not found",
    ]);
    expect(errorSignatures("error ->")).toEqual([]);
    expect(errorSignatures("all good")).toEqual([]);
  });

  it("returns single lines of the output, at most MAX_SIGNATURE_CHARS long (property)", () => {
    const line = fc.string({ maxLength: 300 }).map((s) => s.replace(/\n/g, " "));
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            line,
            fc.constantFrom(
              "** (KeyError) key :a not found",
              "Traceback (most recent call last):",
              "ValueError: bad",
              "FAILED t.py::x - boom",
            ),
          ),
          { maxLength: 30 },
        ),
        (lines) => {
          const output = lines.join("\n");
          for (const signature of errorSignatures(output)) {
            expect(signature).not.toContain("\n");
            expect(signature.length).toBeLessThanOrEqual(MAX_SIGNATURE_CHARS);
            const start = signature.replace(/…$/, "").slice(0, 20);
            expect(output.replace(/\s+/g, " ")).toContain(start);
          }
        },
      ),
    );
  });
});
