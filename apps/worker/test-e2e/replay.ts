/**
 * @module test-e2e/replay
 * Creates a session worth inspecting: replays a real agent transcript from
 * `@condense/test-fixtures` turn by turn, the way an agent would run with
 * Condense (fetch the context, then append the model's answer and what its
 * tool calls returned), in a small window so it compacts several times; then
 * waits for the background compactions to settle.
 */

import { readFileSync } from "node:fs";
import { type Call, ok } from "./api.ts";

interface FixtureMessage {
  role: string;
  [field: string]: unknown;
}

/** The head (everything before the first answer), then one turn per assistant message. */
function turns(messages: FixtureMessage[]): { head: FixtureMessage[]; turns: FixtureMessage[][] } {
  const firstAnswer = messages.findIndex((m) => m.role === "assistant");
  const headEnd = firstAnswer < 0 ? messages.length : firstAnswer;
  const rest: FixtureMessage[][] = [];
  for (const message of messages.slice(headEnd)) {
    const current = rest.at(-1);
    if (message.role === "assistant" || current === undefined) rest.push([message]);
    else current.push(message);
  }
  return { head: messages.slice(0, headEnd), turns: rest };
}

export async function replayFixture(
  call: Call,
  options: {
    sessionId: string;
    fixture: string;
    contextWindow: number;
    model?: string;
    /** false: append only, as a client that keeps its own history and reports it (no usage). */
    fetchContext?: boolean;
  },
): Promise<void> {
  const { messages } = JSON.parse(readFileSync(options.fixture, "utf8")) as {
    messages: FixtureMessage[];
  };
  const { head, turns: rest } = turns(messages);
  const path = `/v1/sessions/${options.sessionId}`;
  const model = options.model ?? "gpt-4o";
  await ok(
    call("PATCH", path, { model, contextWindow: options.contextWindow }),
    "configure the session",
  );
  await ok(call("POST", `${path}/messages`, { messages: head, model }), "append the head");
  for (const [index, turn] of rest.entries()) {
    if (options.fetchContext !== false) {
      await ok(call("GET", `${path}/context`), `context before turn ${index + 1}`);
    }
    await ok(
      call("POST", `${path}/messages`, { messages: turn, model }),
      `append turn ${index + 1}`,
    );
  }
  // Background compactions run on the object's alarm; wait (bounded) until none is pending.
  for (let attempt = 0; attempt < 120; attempt++) {
    const status = await ok(call<{ compaction: { status: string } }>("GET", path), "status");
    if (status.compaction.status === "none") return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`session ${options.sessionId}: a compaction was still pending after 30 s`);
}
