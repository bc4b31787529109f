import { describe, expect, it } from "vitest";
import { ApiError } from "../../api/errors";
import { condenseRequest } from "./condense-headers";

function refusal(headers: Record<string, string>): ApiError {
  try {
    condenseRequest(new Headers(headers));
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("condenseRequest", () => {
  it("reads neither header as undefined, and both when sent", () => {
    expect(condenseRequest(new Headers())).toEqual({
      sessionId: undefined,
      contextWindow: undefined,
    });
    const headers = new Headers({
      "X-Condense-Session": "agent-run.42",
      "X-Condense-Context-Window": "128k",
    });
    expect(condenseRequest(headers)).toEqual({ sessionId: "agent-run.42", contextWindow: 128_000 });
  });

  it("refuses a malformed session id as the session routes do", () => {
    const error = refusal({ "X-Condense-Session": "no/slashes" });
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_session_id");
  });

  it("refuses a context window that is not a number of tokens, naming the header", () => {
    const error = refusal({ "X-Condense-Context-Window": "lots" });
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_request");
    expect(error.message).toContain('"lots"');
    expect(error.details).toMatchObject({
      in: "header",
      issues: [{ path: "X-Condense-Context-Window" }],
    });
  });
});
