import { describe, expect, it } from "vitest";
import { fieldErrors } from "./field-errors.ts";

const FIELDS = ["model", "contextWindow", "threshold", "pinned"];

describe("fieldErrors", () => {
  it("puts schema issues next to the field their path starts with, in the API's words", () => {
    expect(
      fieldErrors(
        {
          code: "invalid_request",
          message: "invalid request body: `threshold` Too big: expected number to be <=1",
          details: {
            in: "body",
            issues: [
              { path: "threshold", message: "Too big: expected number to be <=1", code: "too_big" },
              { path: "pinned[0].role", message: "Invalid option", code: "invalid_value" },
            ],
          },
        },
        FIELDS,
      ),
    ).toEqual({
      byField: {
        threshold: "Too big: expected number to be <=1",
        pinned: "pinned[0].role: Invalid option",
      },
      general: null,
    });
  });

  it("puts the engine's message problems on the messages field", () => {
    expect(
      fieldErrors(
        {
          code: "invalid_messages",
          message: "1 problem",
          details: { problems: [{ index: 0, path: "[0].content", kind: "x", message: "empty" }] },
        },
        FIELDS,
        "pinned",
      ).byField,
    ).toEqual({ pinned: "[0].content: empty" });
  });

  it("uses a field named in the message, and keeps anything else for the form", () => {
    expect(
      fieldErrors(
        { code: "invalid_options", message: "contextWindow must be at least 1000", details: null },
        FIELDS,
      ),
    ).toEqual({ byField: { contextWindow: "contextWindow must be at least 1000" }, general: null });
    expect(
      fieldErrors(
        {
          code: "invalid_request",
          message: "unrecognized key: `colour`",
          details: { issues: [{ path: "", message: "x" }] },
        },
        FIELDS,
      ),
    ).toEqual({ byField: {}, general: "unrecognized key: `colour`" });
  });
});
